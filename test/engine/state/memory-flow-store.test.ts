import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryFlowStore, NoopFlowStore, needsImplicitFlowStore } from '../../../engine/state/index.js';

const test = suite('state: memory and noop flow stores');

/** A store on a hand-driven clock: expiry is tested without sleeping. */
function clocked(ttlSeconds = 10): { store: MemoryFlowStore; advance: (ms: number) => void } {
  let now = 1_000_000;
  const store = new MemoryFlowStore({ ttlSeconds, now: () => now });
  return {
    store,
    advance: (ms) => {
      now += ms;
    },
  };
}

test('set/get/exists/delete keep JSON values per flow', async () => {
  const { store } = clocked();
  await store.set('a', 'k', { n: [1, 2] });
  assert.equal(await store.get('a', 'k'), { n: [1, 2] });
  assert.is(await store.get('b', 'k'), undefined);
  assert.is(await store.exists('a', 'k'), true);
  assert.is(await store.delete('a', 'k'), true);
  assert.is(await store.delete('a', 'k'), false);
  assert.is(await store.exists('a', 'k'), false);
  await store.close();
});

test('getNow/setNow are the synchronous get/set of the same data', async () => {
  const { store, advance } = clocked(10);
  store.setNow('f', 'k', 'v');
  assert.is(await store.get('f', 'k'), 'v');
  await store.set('f', 'j', 1);
  assert.is(store.getNow('f', 'j'), 1);
  advance(10_000);
  assert.is(store.getNow('f', 'k'), undefined);
  await store.close();
});

test('stored values are copies: mutating what was stored or read changes nothing', async () => {
  const { store } = clocked();
  const value = { list: [1] };
  await store.set('f', 'k', value);
  value.list.push(2);
  const read = (await store.get('f', 'k')) as { list: number[] };
  read.list.push(3);
  assert.equal(await store.get('f', 'k'), { list: [1] });
  await store.close();
});

test('writes expire after ttlSeconds and a later write re-stamps the default TTL', async () => {
  const { store, advance } = clocked(10);
  await store.set('f', 'k', 1);
  advance(9_999);
  assert.is(await store.get('f', 'k'), 1);
  await store.expireKey('f', 'k', 1);
  await store.set('f', 'k', 2);
  advance(5_000);
  assert.is(await store.get('f', 'k'), 2, 'the write re-stamped 10 s over the 1 s override');
  advance(5_001);
  assert.is(await store.get('f', 'k'), undefined);
  assert.is(await store.activeFlows(), 0);
  await store.close();
});

test('incrBy starts from 0, is per key, re-stamps, and rejects a non-number', async () => {
  const { store, advance } = clocked(10);
  assert.is(await store.incrBy('f', 'n', 1), 1);
  advance(8_000);
  assert.is(await store.incrBy('f', 'n', 5), 6);
  advance(8_000);
  assert.is(await store.get('f', 'n'), 6);
  await store.set('f', 's', 'text');
  try {
    await store.incrBy('f', 's', 1);
    assert.unreachable('a string cannot be incremented');
  } catch (err) {
    assert.match((err as Error).message, /not a number/);
  }
  await store.close();
});

test('cas applies on JSON equality, reports the current value otherwise, and treats absent as null', async () => {
  const { store } = clocked();
  assert.equal(await store.cas('f', 'k', null, { v: 1 }), { applied: true });
  assert.equal(await store.cas('f', 'k', { v: 2 }, { v: 3 }), { applied: false, current: { v: 1 } });
  assert.equal(await store.cas('f', 'k', { v: 1 }, { v: 3 }), { applied: true });
  assert.equal(await store.get('f', 'k'), { v: 3 });
  await store.close();
});

test('expireFlow re-stamps every key, and <= 0 expires them now; expireKey reports existence', async () => {
  const { store, advance } = clocked(10);
  await store.set('f', 'a', 1);
  await store.set('f', 'b', 2);
  await store.expireFlow('f', 100);
  advance(50_000);
  assert.is(await store.get('f', 'a'), 1);
  assert.is(await store.expireKey('f', 'a', 0), true);
  assert.is(await store.exists('f', 'a'), false);
  assert.is(await store.expireKey('f', 'missing', 5), false);
  await store.expireFlow('f', 0);
  assert.is(await store.get('f', 'b'), undefined);
  await store.close();
});

test('clear is per flow and idempotent; activeFlows counts flows with a live key', async () => {
  const { store } = clocked();
  await store.set('a', 'k', 1);
  await store.set('b', 'k', 1);
  assert.is(await store.activeFlows(), 2);
  await store.clear('a');
  await store.clear('a');
  await store.clear('never');
  assert.is(await store.activeFlows(), 1);
  assert.is(await store.get('b', 'k'), 1);
  await store.close();
});

test('metrics: every operation by result, and active flows as +1/-1 deltas (expiry included)', async () => {
  let now = 0;
  const ops: string[] = [];
  let active = 0;
  const store = new MemoryFlowStore({
    ttlSeconds: 10,
    now: () => now,
    metrics: {
      onFlowStateOp: (op, result) => ops.push(`${op}:${result}`),
      onActiveFlows: (backend, delta) => {
        if (backend === 'inmemory') active += delta;
      },
    },
  });
  await store.set('a', 'k', 1);
  await store.set('b', 'k', 'text');
  assert.is(active, 2);
  await store.get('a', 'k');
  await store.get('a', 'missing');
  await store.cas('a', 'k', 2, 3);
  await store.incrBy('b', 'k', 1).catch(() => undefined);
  store.getNow('a', 'k');
  await store.delete('a', 'k');
  assert.is(active, 1, 'deleting the last key ends the flow');
  assert.equal(ops, ['set:ok', 'set:ok', 'get:ok', 'get:miss', 'cas:conflict', 'incr:error', 'get:ok', 'delete:ok']);
  now += 10_000;
  assert.is(await store.activeFlows(), 0);
  assert.is(active, 0, 'an expired flow stops counting');
  await store.set('c', 'k', 1);
  await store.close();
  assert.is(active, 0, 'close drops the rest');
});

test("entries lists a flow's live keys with copies of their values, leaving expired keys out", async () => {
  const { store, advance } = clocked(10);
  assert.equal(await store.entries('f'), {});
  await store.set('f', 'a', { n: [1] });
  advance(5_000);
  await store.set('f', 'b', 2);
  await store.set('other', 'c', 3);
  const listed = await store.entries('f');
  assert.equal(listed, { a: { n: [1] }, b: 2 });
  (listed.a as { n: number[] }).n.push(9);
  assert.equal(await store.get('f', 'a'), { n: [1] }, 'a listed value is a copy');
  advance(5_000);
  assert.equal(await store.entries('f'), { b: 2 }, 'a expired');
  advance(5_000);
  assert.equal(await store.entries('f'), {});
  assert.is(await store.activeFlows(), 0, 'both flows have expired');
  await store.set('p', '__proto__', 1);
  const odd = await store.entries('p');
  assert.equal(Object.keys(odd), ['__proto__']);
  assert.is(JSON.stringify(odd), '{"__proto__":1}');
  await store.close();
});

test('noop store keeps nothing', async () => {
  const store = new NoopFlowStore();
  await store.set('f', 'k', 1);
  assert.is(await store.get('f', 'k'), undefined);
  assert.is(await store.exists('f', 'k'), false);
  assert.is(await store.incrBy('f', 'n', 1), 1);
  assert.is(await store.incrBy('f', 'n', 1), 1);
  assert.is(await store.activeFlows(), 0);
  assert.equal(await store.entries('f'), {});
  assert.is(store.backend, 'noop');
});

test('needsImplicitFlowStore: script responses and scenario fields (both spellings), not with explicit flowState', () => {
  const is = { is: { body: 'x' } };
  assert.is(needsImplicitFlowStore({ stubs: [{ responses: [is] }] }), false);
  assert.is(needsImplicitFlowStore({ stubs: [] }), false);
  assert.is(needsImplicitFlowStore({ stubs: [{ responses: [{ _svc: { script: { code: 'x' } } }] }] }), true);
  for (const field of ['scenarioName', 'requiredScenarioState', 'newScenarioState', 'required_scenario_state', 'new_scenario_state']) {
    assert.is(needsImplicitFlowStore({ stubs: [{ [field]: 's', responses: [is] }] }), true, field);
  }
  assert.is(needsImplicitFlowStore({ _svc: { flowState: {} }, stubs: [{ scenarioName: 's', responses: [is] }] }), false);
});

test.run();

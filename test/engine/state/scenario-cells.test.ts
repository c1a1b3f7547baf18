/**
 * The in-memory store with shared scenario cells (per-core): every FlowStore operation on a key kept in a
 * cell behaves as on a key kept in the map, and what an engine thread's view of the cells moves is what the
 * store reads.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_STATES, MemoryFlowStore, ScenarioCellView, StubGates, scenarioKey } from '../../../engine/state/index.js';

const test = suite('state: scenario cells of the in-memory store');

const KEY = scenarioKey('order');

function clocked(ttlSeconds = 10) {
  let now = 1_000_000;
  const active: number[] = [];
  const ops: string[] = [];
  const store = new MemoryFlowStore({
    ttlSeconds,
    now: () => now,
    metrics: { onActiveFlows: (_backend, delta) => active.push(delta), onFlowStateOp: (op, result) => ops.push(`${op}:${result}`) },
  });
  return {
    store,
    gauge: () => active.reduce((sum, delta) => sum + delta, 0),
    ops,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

test('a value stored before the key is shared moves into its cell; the listing, cas, expiry and clear see one key', async () => {
  const { store, gauge, advance } = clocked(10);
  await store.set('f', KEY, 'Paid');
  await store.set('f', 'other', 1);
  store.shareScenarios(['f'], [KEY], ['Started', 'Paid'], () => undefined);
  assert.is(await store.get('f', KEY), 'Paid');
  assert.equal(await store.entries('f'), { other: 1, [KEY]: 'Paid' });
  assert.equal(await store.cas('f', KEY, 'Started', 'Shipped'), { applied: false, current: 'Paid' });
  assert.equal(await store.cas('f', KEY, 'Paid', 'Shipped'), { applied: true });
  assert.is(store.getNow('f', KEY), 'Shipped');
  assert.is(gauge(), 1);
  // The map's key and the cell expire on the same clock: the flow is gone with both.
  await store.delete('f', 'other');
  assert.is(await store.activeFlows(), 1);
  advance(10_000);
  assert.is(await store.get('f', KEY), undefined);
  assert.is(await store.activeFlows(), 0);
  assert.is(gauge(), 0);
  await store.set('f', KEY, 'Paid');
  assert.is(await store.expireKey('f', KEY, 60), true);
  advance(30_000);
  assert.is(await store.exists('f', KEY), true);
  await store.expireFlow('f', 0);
  assert.is(await store.exists('f', KEY), false);
  await store.set('f', KEY, 'Paid');
  await store.clear('f');
  assert.equal(await store.entries('f'), {});
  assert.is(gauge(), 0);
  await store.close();
});

test('values that are not state names are kept too: numbers increment, objects and strings past the cap read back', async () => {
  const { store } = clocked();
  let announced = 0;
  store.shareScenarios(['f'], [KEY], ['Started'], () => {
    announced += 1;
  });
  assert.is(await store.incrBy('f', KEY, 2), 2);
  assert.is(await store.incrBy('f', KEY, 3), 5);
  await store.set('f', KEY, { a: [1] });
  assert.equal(await store.get('f', KEY), { a: [1] });
  await store.incrBy('f', KEY, 1).then(
    () => assert.unreachable('an object does not increment'),
    (err: Error) => assert.match(err.message, /not a number/),
  );
  for (let i = 0; i < MAX_STATES + 10; i += 1) {
    await store.set('f', KEY, `state-${i}`);
    assert.is(await store.get('f', KEY), `state-${i}`);
  }
  // Each new name is announced (engine threads need a new plan) until the cap; past it nothing is interned.
  assert.is(announced, MAX_STATES - 1);
  await store.close();
});

test("an engine thread's view moves the cell by compare-and-set on the word it read: one move of two racing ones applies", async () => {
  const { store, ops } = clocked();
  const plan = store.shareScenarios(['f'], [KEY], ['Started', 'Paid'], () => undefined);
  const view = new ScenarioCellView(structuredClone(plan));
  const gates = StubGates.compile([{ scenarioName: 'order', requiredScenarioState: 'Started', newScenarioState: 'Paid', responses: [] }])!;
  // The thread's store: the owner's (for what the cells cannot answer) seen through the thread's view.
  const remote = Object.create(store, { scenarioCells: { value: view } }) as MemoryFlowStore;
  const first = gates.forRequest({}, 'f', remote);
  const second = gates.forRequest({}, 'f', remote);
  if (first instanceof Promise || second instanceof Promise) throw new Error('cells are read synchronously');
  assert.is(first.context.isEligible?.(0), 'ok');
  assert.is(second.context.isEligible?.(0), 'ok');
  assert.is(first.served(0), undefined, 'the first move applies at once');
  assert.is(await second.served(0), false, 'the second finds the cell moved: matched again');
  assert.is(await store.get('f', KEY), 'Paid');
  const again = gates.forRequest({}, 'f', remote);
  if (again instanceof Promise) throw new Error('cells are read synchronously');
  assert.is(again.context.isEligible?.(0), 'skippedScenarioState');
  store.collectShared();
  assert.ok(
    ['get:miss', 'cas:ok', 'cas:conflict', 'get:ok'].every((op) => ops.includes(op)),
    ops.join(),
  );
  await store.close();
});

test.run();

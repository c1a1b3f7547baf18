import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RedisFlowStore, type FlowStoreMetrics } from '../../../engine/state/index.js';
import { startRedis, SuiteSetup, type RedisServer } from '../../support/redis-server.js';

const test = suite('state: redis flow store (real redis-server)');
let redis: RedisServer | undefined;
let store: RedisFlowStore | undefined;
const ops: string[] = [];
const metrics: FlowStoreMetrics = { onFlowStateOp: (op, result) => ops.push(`${op}:${result}`), onActiveFlows: () => undefined };

const setup = new SuiteSetup(async () => {
  redis = await startRedis();
  store = await RedisFlowStore.open({ url: redis.url, poolSize: 3, keyPrefix: 't:', ttlSeconds: 5, metrics });
  return { redis, store };
});
test.before(setup.run);
test.after(async () => {
  await store?.close();
  await redis?.stop();
});

test('set/get/exists/delete round-trip JSON values per flow', async () => {
  const { store } = setup.get();
  await store.set('a', 'k', { n: [1, 'two', null], ok: true });
  assert.equal(await store.get('a', 'k'), { n: [1, 'two', null], ok: true });
  assert.is(await store.get('b', 'k'), undefined);
  assert.is(await store.exists('a', 'k'), true);
  assert.is(await store.delete('a', 'k'), true);
  assert.is(await store.delete('a', 'k'), false);
  assert.is(await store.exists('a', 'k'), false);
});

test('flow ids with ":" do not collide with other flows', async () => {
  const { store } = setup.get();
  await store.set('x:k:y', 'z', 1);
  await store.set('x', 'y:z', 2);
  assert.is(await store.get('x:k:y', 'z'), 1);
  assert.is(await store.get('x', 'y:z'), 2);
  await store.clear('x:k:y');
  assert.is(await store.get('x', 'y:z'), 2);
  await store.clear('x');
});

test('incrBy is atomic across the pool, starts from 0 and rejects a non-number', async () => {
  const { store } = setup.get();
  const results = await Promise.all(Array.from({ length: 50 }, () => store.incrBy('c', 'n', 1)));
  assert.is(Math.max(...results), 50);
  assert.is(new Set(results).size, 50);
  assert.is(await store.incrBy('c', 'f', 0.5), 0.5);
  assert.is(await store.incrBy('c', 'f', 0.25), 0.75);
  await store.set('c', 's', 'text');
  try {
    await store.incrBy('c', 's', 1);
    assert.unreachable('a string cannot be incremented');
  } catch (err) {
    assert.match((err as Error).message, /not a number/);
  }
  await store.clear('c');
});

test('cas compares JSON (key order aside), reports the current value, and treats absent as null', async () => {
  const { store } = setup.get();
  assert.equal(await store.cas('d', 'k', null, { a: 1, b: 2 }), { applied: true });
  assert.equal(await store.cas('d', 'k', { a: 9 }, 'x'), { applied: false, current: { a: 1, b: 2 } });
  assert.equal(await store.cas('d', 'k', { b: 2, a: 1 }, 'x'), { applied: true });
  assert.is(await store.get('d', 'k'), 'x');
  const racers = await Promise.all(Array.from({ length: 10 }, (_, i) => store.cas('d', 'k', 'x', i)));
  assert.is(racers.filter((r) => r.applied).length, 1, 'exactly one concurrent cas wins');
  await store.clear('d');
});

test('writes carry the TTL; expireKey/expireFlow re-stamp or delete; clear empties the flow', async () => {
  const { store } = setup.get();
  await store.set('e', 'a', 1);
  await store.set('e', 'b', 2);
  assert.is(await store.expireKey('e', 'missing', 5), false);
  assert.is(await store.expireKey('e', 'a', 0), true);
  assert.is(await store.exists('e', 'a'), false);
  await store.expireFlow('e', 0.2);
  assert.is(await store.get('e', 'b'), 2);
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.is(await store.get('e', 'b'), undefined, 'expired by ttl(0.2 s)');
  await store.set('e', 'c', 3);
  await store.clear('e');
  await store.clear('e');
  assert.is(await store.get('e', 'c'), undefined);
});

test("entries lists a flow's live keys (not another flow's, not expired ones) and forgets an emptied flow", async () => {
  const { store } = setup.get();
  assert.equal(await store.entries('l'), {});
  await store.set('l', 'doc', { a: [1, null] });
  await store.set('l', 'k:with:colons', 'v');
  await store.incrBy('l', 'n', 2);
  await store.set('l:k:x', 'y', 'other flow');
  assert.equal(await store.entries('l'), { doc: { a: [1, null] }, 'k:with:colons': 'v', n: 2 });
  const before = await store.activeFlows();
  await store.expireKey('l', 'doc', 0.1);
  await store.expireKey('l', 'k:with:colons', 0.1);
  await store.expireKey('l', 'n', 0.1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(await store.entries('l'), {}, 'expired keys are not listed');
  assert.is(await store.activeFlows(), before - 1, 'the emptied flow is no longer active');
  assert.equal(await store.entries('l:k:x'), { y: 'other flow' });
  await store.clear('l:k:x');
  await store.set('p', '__proto__', 1);
  assert.is(JSON.stringify(await store.entries('p')), '{"__proto__":1}', 'a key named __proto__ is listed');
  await store.clear('p');
});

test('activeFlows counts flows holding a live key', async () => {
  const { store } = setup.get();
  const before = await store.activeFlows();
  await store.set('f1', 'k', 1);
  await store.set('f2', 'k', 1);
  assert.is(await store.activeFlows(), before + 2);
  await store.clear('f1');
  await store.delete('f2', 'k');
  assert.is(await store.activeFlows(), before);
});

test('operations are counted by operation and result', async () => {
  const { store } = setup.get();
  ops.length = 0;
  await store.get('g', 'absent');
  await store.set('g', 'k', 1);
  await store.cas('g', 'k', 2, 3);
  assert.equal(ops, ['get:miss', 'set:ok', 'cas:conflict']);
  await store.clear('g');
});

test('svc_active_flows follows the server within its refresh period, and drops to 0 on close', async () => {
  const { redis } = setup.get();
  let gauge = 0;
  const backends = new Set<string>();
  const onActiveFlows = (backend: string, delta: number): void => {
    backends.add(backend);
    gauge += delta;
  };
  const own = await RedisFlowStore.open({
    url: redis.url,
    poolSize: 1,
    keyPrefix: 'gauge:',
    ttlSeconds: 5,
    metrics: { onFlowStateOp: () => undefined, onActiveFlows },
  });
  const waitFor = async (wanted: number): Promise<void> => {
    for (let i = 0; i < 1200 && gauge !== wanted; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(gauge, wanted);
  };
  await own.set('g1', 'k', 1);
  await own.set('g2', 'k', 1);
  await waitFor(2);
  await own.clear('g1');
  await waitFor(1);
  await own.close();
  assert.is(gauge, 0);
  assert.equal([...backends], ['redis']);
});

test('stores sharing a server and prefix count their shared flows once, and hand the count over on close', async () => {
  const { redis } = setup.get();
  let gauge = 0;
  const shared: FlowStoreMetrics = {
    onFlowStateOp: () => undefined,
    onActiveFlows: (_backend, delta) => {
      gauge += delta;
    },
  };
  const options = { url: redis.url, poolSize: 1, keyPrefix: 'shared:', ttlSeconds: 60, metrics: shared };
  const [first, second] = [await RedisFlowStore.open(options), await RedisFlowStore.open(options)];
  const waitFor = async (wanted: number): Promise<void> => {
    for (let i = 0; i < 1200 && gauge !== wanted; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(gauge, wanted);
  };
  try {
    await first.set('s1', 'k', 1);
    await second.set('s2', 'k', 1);
    await waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.is(gauge, 2, 'still 2 after another refresh period: not counted per store');
    await first.close();
    await waitFor(2);
  } finally {
    await first.close();
    await second.close();
  }
  assert.is(gauge, 0);
});

test('a store whose server went away works again once it is back (reconnects in the background)', async () => {
  setup.get();
  const first = await startRedis();
  const own = await RedisFlowStore.open({ url: first.url, poolSize: 2, keyPrefix: 'back:', ttlSeconds: 5 });
  let second: RedisServer | undefined;
  try {
    await first.stop();
    await own.set('f', 'k', 1).then(
      () => assert.unreachable('the server is stopped'),
      (err: Error) => assert.match(err.message, /^redis flow store: /),
    );
    second = await startRedis(first.port);
    let answer: unknown = 'never';
    for (let i = 0; i < 50 && answer === 'never'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await own.incrBy('f', 'n', 1).catch(() => 'never');
    }
    assert.is(answer, 1, 'the store answers again within 5 s');
  } finally {
    await own.close();
    await second?.stop();
  }
});

test('an unreachable server fails open; a stopped one makes calls reject (never a default)', async () => {
  setup.get();
  const other = await startRedis();
  const doomed = await RedisFlowStore.open({ url: other.url, poolSize: 2, keyPrefix: 't:', ttlSeconds: 5 });
  await doomed.set('h', 'k', 1);
  await other.stop();
  for (const call of [() => doomed.get('h', 'k'), () => doomed.set('h', 'k', 2), () => doomed.incrBy('h', 'n', 1)]) {
    try {
      await call();
      assert.unreachable('the server is stopped');
    } catch (err) {
      assert.match((err as Error).message, /^redis flow store: /);
    }
  }
  await doomed.close();
  try {
    await RedisFlowStore.open({ url: other.url, poolSize: 1, keyPrefix: 't:', ttlSeconds: 5, openTimeoutMs: 1000 });
    assert.unreachable('nothing listens there any more');
  } catch (err) {
    assert.match((err as Error).message, /^redis flow store: /);
  }
});

test.run();

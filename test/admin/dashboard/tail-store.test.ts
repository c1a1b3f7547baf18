/** The page's pure pieces: the tail store (batching, retention, filters, pause, hit counts) and the value diff. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error: a plain browser ES module, no type declarations
import { filterTest, RETENTION, summarise, TailStore } from '../../../admin/dashboard/static/tail-store.js';
// @ts-expect-error: a plain browser ES module, no type declarations
import { diffParts } from '../../../admin/dashboard/static/diff.js';

const test = suite('dashboard: tail store and diff');

const request = (n: number, extra: Record<string, unknown> = {}) => ({
  index: n,
  flowId: n % 2 === 0 ? 'even' : 'odd',
  request: {
    timestamp: new Date(1_700_000_000_000 + n).toISOString(),
    method: n % 3 === 0 ? 'POST' : 'GET',
    path: `/p${n}`,
    query: { n: String(n) },
    status: n % 5 === 0 ? 404 : 200,
    latencyMs: 1,
    matchOutcome: n % 5 === 0 ? { matched: false } : { matched: true, stubIndex: 0, stubId: n % 2 === 0 ? 'a' : 'b' },
    ...extra,
  },
});

/** A store whose frames run when the test says. */
function manual() {
  const frames: Array<() => void> = [];
  const store = new TailStore((run: () => void) => frames.push(run));
  let renders = 0;
  store.subscribe(() => {
    renders += 1;
  });
  return {
    store,
    frames,
    runFrames: () => {
      for (const run of frames.splice(0)) run();
    },
    renders: () => renders,
  };
}

test('arrivals join the list once per frame, in one notification, each summarised once', () => {
  const { store, frames, runFrames, renders } = manual();
  for (let n = 1; n <= 300; n += 1) store.add([request(n)]);
  assert.is(frames.length, 1, 'one frame requested for the burst');
  assert.is(store.entries.length, 0);
  runFrames();
  assert.is(store.entries.length, 300);
  assert.is(renders(), 1);
  assert.is(store.entries[0].target, '/p1?n=1');
  store.add([request(300), request(2)]);
  runFrames();
  assert.is(store.entries.length, 300, 'entries at or below the cursor are dropped');
});

test('retention keeps the newest 10,000 and the hit counts follow evictions', () => {
  const { store, runFrames } = manual();
  const items = [];
  for (let n = 1; n <= RETENTION + 10; n += 1) items.push(request(n));
  store.add(items);
  runFrames();
  assert.is(store.entries.length, RETENTION);
  assert.is(store.entries[0].index, 11);
  let hits = 0;
  for (const entry of store.entries) if (entry.kind === 'match' && entry.stubId === 'a') hits += 1;
  assert.is(store.hitsOf({ id: 'a' }, 0), hits);
  assert.is(store.hitsOf({ id: 'never' }, 7), 0);
});

test('filters: misses only, method, path, status (exact or class) and flow id', () => {
  const { store, runFrames } = manual();
  const items = [];
  for (let n = 1; n <= 30; n += 1) items.push(request(n));
  store.add(items);
  runFrames();
  store.setFilter({ missesOnly: true });
  assert.equal(
    store.visible.map((e: { index: number }) => e.index),
    [5, 10, 15, 20, 25, 30],
  );
  store.setFilter({ method: 'POST', status: '4xx' });
  assert.equal(
    store.visible.map((e: { index: number }) => e.index),
    [15, 30],
  );
  store.setFilter({ path: 'P2', flowId: 'even' });
  assert.equal(
    store.visible.map((e: { index: number }) => e.index),
    [2, 20, 22, 24, 26, 28],
  );
  store.add([request(200), request(201), request(202)]);
  runFrames();
  assert.equal(
    store.visible.slice(-2).map((e: { index: number }) => e.index),
    [200, 202],
    'arrivals are filtered as they join (201 is odd)',
  );
  assert.ok(filterTest({ status: '200' })(summarise(1, 'x', request(1).request)));
});

test('paused: arrivals wait, and join on resume', () => {
  const { store, runFrames } = manual();
  store.add([request(1)]);
  runFrames();
  store.setPaused(true);
  store.add([request(2), request(3)]);
  runFrames();
  assert.is(store.entries.length, 1);
  assert.is(store.pending.length, 2);
  store.setPaused(false);
  assert.is(store.entries.length, 3);
  store.clear();
  assert.is(store.entries.length, 0);
  store.add([request(3), request(4)]);
  runFrames();
  assert.equal(
    store.entries.map((e: { index: number }) => e.index),
    [4],
    'the cursor survives a clear (indexes are not reused)',
  );
});

test('diff marks the differing stretch of strings and the differing lines of JSON', () => {
  const strings = diffParts('/orders/12/items', '/orders/13/items');
  assert.equal(strings.expected, [
    { same: true, text: '/orders/1' },
    { same: false, text: '2' },
    { same: true, text: '/items' },
  ]);
  assert.equal(strings.actual[1], { same: false, text: '3' });
  const json = diffParts({ a: 1, b: 2 }, { a: 1, b: 3 });
  assert.equal(
    json.actual.filter((p: { same: boolean }) => !p.same).map((p: { text: string }) => p.text.trim()),
    ['"b": 3'],
  );
});

test.run();

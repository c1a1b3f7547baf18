/**
 * WaitingThreads: the per-pool record of which threads' script runs wait for a worker, by which a
 * thread that frees a worker leaves it to the others (engine/script/svc/runner.ts, linked.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WaitingThreads } from '../../../engine/threads/index.js';

test('each thread counts once however often it says it waits, and sees only the others', () => {
  const main = new WaitingThreads();
  const engine = new WaitingThreads(main.buffer, 1);
  const other = new WaitingThreads(main.buffer, 2);
  assert.is(main.others, 0);
  engine.set(true);
  engine.set(true);
  assert.is(main.others, 1);
  assert.is(engine.others, 0);
  other.set(true);
  main.set(true);
  assert.equal([main.others, engine.others, other.others], [2, 2, 2]);
  engine.set(false);
  engine.set(false);
  assert.equal([main.others, engine.others, other.others], [1, 2, 1]);
});

test('a lost thread cleared by main no longer counts, and clearing twice or a thread that did not wait changes nothing', () => {
  const main = new WaitingThreads();
  const engine = new WaitingThreads(main.buffer, 3);
  engine.set(true);
  assert.is(main.others, 1);
  WaitingThreads.clear(main.buffer, 3);
  WaitingThreads.clear(main.buffer, 3);
  WaitingThreads.clear(main.buffer, 4);
  assert.is(main.others, 0);
  // The thread's successor starts afresh in the same slot.
  const successor = new WaitingThreads(main.buffer, 3);
  successor.set(true);
  assert.is(main.others, 1);
});

test.run();

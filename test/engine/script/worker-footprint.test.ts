/**
 * A script worker measures itself after its runs (engine/script/shared/worker-memory.ts): growth that
 * a memory-reducing collection gives back does not cost the worker (and its imposters' state); growth
 * that stays live does.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPLACE_GROWTH_BYTES, WorkerFootprint } from '../../../engine/script/shared/index.js';
import { memoryReducingGc } from '../../../engine/threads/index.js';

const test = suite('script worker footprint');

/** About `mb` MB of live objects. */
function build(mb: number): Array<{ values: number[] }> {
  const kept: Array<{ values: number[] }> = [];
  while (kept.length < mb * 5000) kept.push({ values: new Array(20).fill(kept.length) });
  return kept;
}

/** A footprint taken on a collected heap: this process ran other suites before (uvu runs them in one), and their garbage must not be the base. */
function freshFootprint(): WorkerFootprint {
  memoryReducingGc()?.();
  return new WorkerFootprint();
}

test('garbage past the bound (a bomb that failed) is collected, and the worker is not grown', () => {
  const footprint = freshFootprint();
  const start = footprint.bytes();
  let kept: Array<{ values: number[] }> | undefined = build(150);
  assert.is(kept.length, 750_000);
  kept = undefined;
  const grownTo = footprint.bytes();
  assert.ok(grownTo - start > REPLACE_GROWTH_BYTES, `the heap grew (${start >> 20} -> ${grownTo >> 20} MB)`);
  assert.not.ok(footprint.grown(), `the collection gave it back (${start >> 20} -> ${grownTo >> 20} -> ${footprint.bytes() >> 20} MB)`);
});

test('a live set past the bound counts, and stays counted while it lives', () => {
  const footprint = freshFootprint();
  const start = footprint.bytes();
  const kept = build(150);
  assert.ok(footprint.grown(), `150 MB live is growth past ${REPLACE_GROWTH_BYTES >> 20} MB (${start >> 20} -> ${footprint.bytes() >> 20} MB)`);
  assert.ok(footprint.grown(), 'still grown');
  assert.is(kept.length, 750_000);
});

test.run();

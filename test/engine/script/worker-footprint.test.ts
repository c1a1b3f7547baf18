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

test('growth still live counts; once dropped, the collection gives it back and the worker is not grown', () => {
  // This process ran other suites before (uvu runs them in one): their garbage must not be the base.
  memoryReducingGc()?.();
  const footprint = new WorkerFootprint();
  const start = footprint.bytes();
  let kept: Array<{ values: number[] }> | undefined = build(150);
  assert.ok(footprint.grown(), `150 MB live is growth past ${REPLACE_GROWTH_BYTES >> 20} MB (footprint ${start >> 20} -> ${footprint.bytes() >> 20} MB)`);
  assert.is(kept.length, 750_000);
  kept = undefined;
  assert.not.ok(footprint.grown(), `dropped, the collection gave it back (footprint ${footprint.bytes() >> 20} MB)`);
});

test.run();

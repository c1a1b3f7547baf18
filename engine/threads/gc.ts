/**
 * V8's memory-reducing collection, reached without starting node with --expose-gc: `gc` is exposed for
 * one new context, then hidden again. Used by `svc start` once quiet after a burst (app/process/heap-reclaim.ts)
 * and by a script worker that grew (engine/script/shared/worker-memory.ts). V8 12 (Node 22) and later
 * take the `last-resort` flavour, which also unmaps the pages V8 pooled for reuse; Node 20's V8 ignores
 * it (a cheap collection that gave nothing back, measured), and there a plain full collection shrinks
 * the heap (76 -> 38 MB, RSS 128 -> 90 MB in a second, measured). Undefined when `gc` cannot be reached
 * (V8 flags are per process: another thread may hide it in between); the caller may ask again later.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export function memoryReducingGc(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as GcFunction;
    if (Number(process.versions.v8.split('.')[0]) < 12) return () => gc();
    return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

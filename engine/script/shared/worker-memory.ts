/**
 * Memory bounds of the script worker threads (Rhai runner and JavaScript sandbox). A thread gives
 * little of its memory back while it lives: V8 keeps a grown heap committed for a while, and a wasm
 * memory (the QuickJS heap) never shrinks. So each worker runs under V8 `resourceLimits` (a heap
 * that runs away ends the thread, which its host replaces) and measures itself after its runs: one
 * that grew past REPLACE_GROWTH_BYTES over what it held when it started asks to be replaced, and
 * its host swaps it for a fresh thread once it is idle, which returns the memory to the system.
 */
import { getHeapStatistics } from 'node:v8';
import type { ResourceLimits } from 'node:worker_threads';

/**
 * Above the largest live set a run can build (the Rhai allocation budget, a 64 MiB script result)
 * with room for the copies a result needs on its way out; a small young generation keeps the
 * garbage of busy runs from inflating the heap between collections.
 */
export const SCRIPT_WORKER_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 16 };

/** Growth over a worker's starting footprint past which it is replaced. */
export const REPLACE_GROWTH_BYTES = 32 * 1024 * 1024;

/** Tracks one worker thread's footprint: its V8 heap, plus any wasm memory it holds. */
export class WorkerFootprint {
  private readonly base: number;

  constructor(private readonly extraBytes: () => number = () => 0) {
    this.base = this.bytes();
  }

  bytes(): number {
    return getHeapStatistics().total_physical_size + this.extraBytes();
  }

  /** Whether the worker has grown enough to be worth replacing. */
  grown(): boolean {
    return this.bytes() - this.base > REPLACE_GROWTH_BYTES;
  }
}

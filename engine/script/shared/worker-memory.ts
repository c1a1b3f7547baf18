/**
 * Memory bounds of the script worker threads (Rhai runner and JavaScript sandbox). A thread gives
 * little of its memory back while it lives: V8 keeps a grown heap committed for a while, and a wasm
 * memory (the QuickJS heap) never shrinks. So each worker runs under V8 `resourceLimits` (a heap
 * that runs away ends the thread, which its host replaces) and measures itself after its runs: one
 * that grew past REPLACE_GROWTH_BYTES over what it held when it started first runs V8's
 * memory-reducing collection, and if that leaves it grown (a wasm memory) asks to be replaced: its host
 * swaps it for a fresh thread once it is idle, which returns the memory to the system.
 *
 * The collection comes first because a thread's end alone is slow to give memory back under Node 24:
 * V8 pools the pages its collections freed, and a torn-down thread's pool is unmapped 8 s later by a
 * task on another thread (V8's page pool; measured: RSS 265 MB for 8 s after the thread ended, then
 * 66 MB). The memory-reducing collection unmaps them at once (307 -> 75 MB in 67 ms, measured).
 */
import { getHeapStatistics } from 'node:v8';
import type { ResourceLimits } from 'node:worker_threads';
import { memoryReducingGc } from '../../threads/index.js';

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
  private gc: (() => void) | undefined;
  /** The footprint a collection left when it left the worker grown. */
  private grownAfterGc: number | undefined;

  constructor(private readonly extraBytes: () => number = () => 0) {
    this.base = this.bytes();
  }

  bytes(): number {
    return getHeapStatistics().total_physical_size + this.extraBytes();
  }

  /** Whether the worker has grown enough to be worth replacing, after giving back what a collection can. */
  grown(): boolean {
    const bytes = this.bytes();
    if (bytes - this.base <= REPLACE_GROWTH_BYTES) return false;
    // Still grown after a collection (its replacement waits for it to be idle): the next collection
    // waits for as much growth again, so a live set past the bound does not pay one per run.
    if (this.grownAfterGc !== undefined && bytes - this.grownAfterGc <= REPLACE_GROWTH_BYTES) return true;
    this.gc ??= memoryReducingGc();
    this.gc?.();
    const after = this.bytes();
    this.grownAfterGc = after - this.base > REPLACE_GROWTH_BYTES ? after : undefined;
    return this.grownAfterGc !== undefined;
  }
}

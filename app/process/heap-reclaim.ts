/**
 * Gives memory back to the system once a burst is over (issue 23: "memory of closed sessions is
 * released"). V8 sizes its young generation from the machine's memory (docs/limits.md): on a large box
 * a burst of traffic grows the heap to well over 100 MB while it holds a few tens live, and V8 keeps
 * that heap committed for as long as the process lives, even when the server goes quiet. Ordinary
 * collections do not return it; V8's memory-reducing collection (the `last-resort` flavour of `gc()`) does.
 *
 * So `svc start` samples its heap size and event-loop use every CHECK_MS. When the heap has grown past
 * its size after the last reclaim (or at start) by GROWTH_BYTES and by half that size (the pause grows
 * with the live heap, so a large live set must grow in proportion before it is paid again), and the
 * loop was nearly idle over the last check, it runs that collection, at most once every
 * MIN_INTERVAL_MS: the pause (40-150 ms measured) falls while no traffic waits. The size, not the
 * slack over "used", is read: garbage a quiet server has not collected yet counts as used. `svc start`
 * only: an embedder owns its process's heap.
 */
import { getHeapStatistics } from 'node:v8';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { memoryReducingGc } from '../../engine/threads/index.js';

export const RECLAIM_CHECK_MS = 1_000;
const REPORT_DELAY_MS = 1_000;
/** Heap growth over its size after the last reclaim that makes a quiet server collect. */
export const RECLAIM_GROWTH_BYTES = 32 * 1024 * 1024;
/** At most one reclaim in this long, whatever the traffic's rhythm. */
export const RECLAIM_MIN_INTERVAL_MS = 30_000;
/** Event-loop utilisation over the last check below which the server counts as quiet. */
export const RECLAIM_QUIET_UTILISATION = 0.05;

export interface ReclaimReport {
  rssBefore: number;
  rssAfter: number;
  pauseMs: number;
}

export interface HeapReclaimOptions {
  checkMs?: number;
  growthBytes?: number;
  minIntervalMs?: number;
  quietUtilisation?: number;
  onReclaim?: (report: ReclaimReport) => void;
}

export class HeapReclaim {
  private readonly growthBytes: number;
  private readonly minIntervalMs: number;
  private lastAt = -Infinity;
  private base = getHeapStatistics().total_heap_size;
  private readonly quietUtilisation: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private utilisation: EventLoopUtilization = performance.eventLoopUtilization();

  constructor(private readonly options: HeapReclaimOptions = {}) {
    this.growthBytes = options.growthBytes ?? RECLAIM_GROWTH_BYTES;
    this.minIntervalMs = options.minIntervalMs ?? RECLAIM_MIN_INTERVAL_MS;
    this.quietUtilisation = options.quietUtilisation ?? RECLAIM_QUIET_UTILISATION;
    const gc = memoryReducingGc();
    if (gc === undefined) return;
    this.timer = setInterval(() => this.check(gc), options.checkMs ?? RECLAIM_CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private check(gc: () => void): void {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, this.utilisation).utilization;
    this.utilisation = now;
    if (busy > this.quietUtilisation || performance.now() - this.lastAt < this.minIntervalMs) return;
    const size = getHeapStatistics().total_heap_size;
    // A heap V8 shrank on its own is the new base.
    if (size < this.base) this.base = size;
    if (size - this.base < Math.max(this.growthBytes, this.base / 2)) return;
    const rssBefore = process.memoryUsage.rss();
    const started = performance.now();
    gc();
    this.lastAt = performance.now();
    const pauseMs = this.lastAt - started;
    this.base = getHeapStatistics().total_heap_size;
    // The collection's own time is not traffic: the next check measures from here.
    this.utilisation = performance.eventLoopUtilization();
    // V8 unmaps freed pages on a background thread: RSS is read a second later.
    const report = setTimeout(() => this.options.onReclaim?.({ rssBefore, rssAfter: process.memoryUsage.rss(), pauseMs }), REPORT_DELAY_MS);
    report.unref();
  }
}

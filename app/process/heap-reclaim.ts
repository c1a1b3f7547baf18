/**
 * Gives memory back to the system once a burst is over (issue 23: "memory of closed sessions is
 * released"). V8 sizes its young generation from the machine's memory (docs/limits.md): on a large box
 * a burst of traffic grows the heap to well over 100 MB while it holds a few tens live, and V8 keeps
 * that heap committed for as long as the process lives, even when the server goes quiet. Ordinary
 * collections do not return it; V8's memory-reducing collection (the `last-resort` flavour of `gc()`) does.
 *
 * So `svc start` samples its heap and event-loop use every CHECK_MS. When V8 holds more than it uses
 * by SLACK_BYTES and by more than it uses (the pause grows with the live heap, so it is paid only where
 * it returns more than that), and the loop was nearly idle over the last check, it runs that collection,
 * at most once every MIN_INTERVAL_MS: the pause (40-100 ms measured) falls while no traffic waits. A
 * server whose live set grew (a full journal, many stubs) holds no slack and is left alone. `svc start`
 * only: an embedder owns its process's heap.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';

export const RECLAIM_CHECK_MS = 1_000;
/** Heap held beyond what is used that makes a quiet server collect. */
export const RECLAIM_SLACK_BYTES = 32 * 1024 * 1024;
/** At most one reclaim in this long, whatever the traffic's rhythm. */
export const RECLAIM_MIN_INTERVAL_MS = 30_000;
/** Event-loop utilisation over the last check below which the server counts as quiet. */
export const RECLAIM_QUIET_UTILISATION = 0.05;

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface ReclaimReport {
  rssBefore: number;
  rssAfter: number;
  pauseMs: number;
}

export interface HeapReclaimOptions {
  checkMs?: number;
  slackBytes?: number;
  minIntervalMs?: number;
  quietUtilisation?: number;
  onReclaim?: (report: ReclaimReport) => void;
}

/**
 * V8's `gc` function without starting node with --expose-gc: exposed for one new context, then hidden
 * again. Only on V8 12 and later (Node 22+): Node 20's V8 ignores the `flavor` and ran a cheap collection
 * that gave nothing back, while it returned a burst's heap on its own within seconds (measured).
 */
function memoryReducingGc(): GcFunction | undefined {
  if (Number(process.versions.v8.split('.')[0]) < 12) return undefined;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as GcFunction;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

export class HeapReclaim {
  private readonly gc = memoryReducingGc();
  private readonly slackBytes: number;
  private readonly minIntervalMs: number;
  private lastAt = -Infinity;
  private readonly quietUtilisation: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private utilisation: EventLoopUtilization = performance.eventLoopUtilization();

  constructor(private readonly options: HeapReclaimOptions = {}) {
    this.slackBytes = options.slackBytes ?? RECLAIM_SLACK_BYTES;
    this.minIntervalMs = options.minIntervalMs ?? RECLAIM_MIN_INTERVAL_MS;
    this.quietUtilisation = options.quietUtilisation ?? RECLAIM_QUIET_UTILISATION;
    if (this.gc === undefined) return;
    this.timer = setInterval(() => this.check(), options.checkMs ?? RECLAIM_CHECK_MS);
    this.timer.unref();
  }

  /** Whether this process's V8 can give its heap back this way (see memoryReducingGc). */
  get active(): boolean {
    return this.gc !== undefined;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, this.utilisation).utilization;
    this.utilisation = now;
    if (busy > this.quietUtilisation || this.gc === undefined || performance.now() - this.lastAt < this.minIntervalMs) return;
    const heap = getHeapStatistics();
    const slack = heap.total_heap_size - heap.used_heap_size;
    if (slack < Math.max(this.slackBytes, heap.used_heap_size)) return;
    const rssBefore = process.memoryUsage.rss();
    const started = performance.now();
    this.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    this.lastAt = performance.now();
    const pauseMs = this.lastAt - started;
    // The collection's own time is not traffic: the next check measures from here.
    this.utilisation = performance.eventLoopUtilization();
    this.options.onReclaim?.({ rssBefore, rssAfter: process.memoryUsage.rss(), pauseMs });
  }
}

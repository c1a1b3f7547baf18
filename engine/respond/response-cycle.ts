import { isObject, MAX_REPEAT } from '../model/index.js';

function repeatOf(response: Record<string, unknown>): number {
  // The response-level `repeat` wins over the one inside `_behaviors` (docs/responses.md).
  const behaviors = isObject(response._behaviors) ? response._behaviors : undefined;
  const raw = response.repeat ?? behaviors?.repeat;
  const n = typeof raw === 'string' ? parseInt(raw, 10) : typeof raw === 'number' ? raw : 1;
  return Number.isInteger(n) && n > 0 ? Math.min(n, MAX_REPEAT) : 1;
}

/** One response of the cycle and how many times in a row it is served. */
interface Run {
  index: number;
  times: number;
}

/** Where a cycle's position (current run, times it was served) lives. */
interface CycleState {
  /** The run to serve now; the position moves one step (wrapping after the last run). */
  advance(runs: readonly Run[]): number;
  /** The run `advance` would serve; nothing moves. */
  current(): number;
}

/** This thread's fields: what one loop uses, at no cost. */
class LocalState implements CycleState {
  private run = 0;
  private served = 0;

  advance(runs: readonly Run[]): number {
    const run = this.run;
    this.served += 1;
    if (this.served >= runs[run].times) {
      this.served = 0;
      this.run = run + 1 >= runs.length ? 0 : run + 1;
    }
    return run;
  }

  current(): number {
    return this.run;
  }
}

/** Bytes of a shared cycle slot: an Int32 lock, then (run, served) as float64 (`repeat` may exceed 2^31). */
const SLOT_BYTES = 24;

/**
 * Shared memory every engine thread of the per-core runtime steps through, so six requests answered by
 * any threads get A B C A B C. (run, served) move together under a spin lock held for a few instructions.
 */
class SharedState implements CycleState {
  private readonly lock: Int32Array;
  private readonly position: Float64Array;

  constructor(readonly slot: SharedArrayBuffer) {
    this.lock = new Int32Array(slot, 0, 1);
    this.position = new Float64Array(slot, 8, 2);
  }

  advance(runs: readonly Run[]): number {
    while (Atomics.compareExchange(this.lock, 0, 0, 1) !== 0);
    const p = this.position;
    // A thread's runs may be shorter than the writer's for a moment (a stub edit in flight).
    const run = p[0] < runs.length ? p[0] : 0;
    const served = p[1] + 1;
    if (served >= runs[run].times) {
      p[1] = 0;
      p[0] = run + 1 >= runs.length ? 0 : run + 1;
    } else {
      p[0] = run;
      p[1] = served;
    }
    Atomics.store(this.lock, 0, 0);
    return run;
  }

  current(): number {
    while (Atomics.compareExchange(this.lock, 0, 0, 1) !== 0);
    const run = this.position[0];
    Atomics.store(this.lock, 0, 0);
    return run;
  }
}

/** A new shared cycle position (per-core runtime), to give `ResponseCycle` here and on engine threads. */
export function newCycleSlot(): SharedArrayBuffer {
  return new SharedArrayBuffer(SLOT_BYTES);
}

/**
 * Cycles through a stub's responses in order, each served `repeat` times, wrapping around
 * (mountebank's stateful response list). `repeat` stays a count: memory and time do not grow with it.
 * With `slot` the position is shared memory (per-core runtime), else this thread's own.
 */
export class ResponseCycle<T> {
  private readonly runs: Run[] = [];
  private readonly state: CycleState;

  constructor(
    readonly responses: T[],
    configs: ReadonlyArray<Record<string, unknown>>,
    slot?: SharedArrayBuffer,
  ) {
    configs.forEach((config, index) => {
      this.runs.push({ index, times: repeatOf(config) });
    });
    this.state = slot ? new SharedState(slot) : new LocalState();
  }

  /** The shared position, when there is one (engine threads step the same one). */
  get slot(): SharedArrayBuffer | undefined {
    return this.state instanceof SharedState ? this.state.slot : undefined;
  }

  /** Index (into the configs) of the response `next()` returns next; the cycle does not move. */
  peek(): number {
    if (this.runs.length === 1) return this.runs[0].index;
    return this.runs[Math.min(this.state.current(), this.runs.length - 1)].index;
  }

  next(): T {
    return this.responses[this.take()];
  }

  /**
   * Index of the response served now, the cycle moved past it in one step: under per-core another
   * thread may move the cycle between a `peek` and a `next`, never inside `take`.
   */
  take(): number {
    // One response served once per turn: the position never moves, so no shared write (per-core: no lock
    // line bouncing between cores). A run with `repeat` keeps counting: a proxy may append a second run.
    if (this.runs.length === 1 && this.runs[0].times === 1) return this.runs[0].index;
    return this.runs[this.state.advance(this.runs)].index;
  }

  /**
   * The response index served at `position` (0-based count of requests the stub answered): what a
   * fleet-wide counter (engine/fleet) maps to, `repeat` included.
   */
  at(position: number): number {
    let total = 0;
    for (const run of this.runs) total += run.times;
    let left = position % total;
    for (const run of this.runs) {
      if (left < run.times) return run.index;
      left -= run.times;
    }
    return this.runs[0].index;
  }

  /** Whether every request takes the same response (nothing to count: a fleet needs no round trip). */
  get single(): boolean {
    return this.runs.length === 1;
  }

  /** Appends a response (proxy recordings) to the end of the cycle. */
  push(response: T, config: Record<string, unknown>): void {
    this.responses.push(response);
    this.runs.push({ index: this.responses.length - 1, times: repeatOf(config) });
  }
}

/**
 * A count in shared memory that several threads claim from and give back to (Atomics): how many
 * calls a worker owes across every thread that reaches it, or how many scripts an imposter runs.
 */
export class SharedCount {
  private readonly word: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.word = new Int32Array(buffer);
  }

  get value(): number {
    return Atomics.load(this.word, 0);
  }

  /** One more, unless that would pass `limit`: false then, and nothing changed. */
  tryClaim(limit: number): boolean {
    for (let seen = this.value; seen < limit; seen = this.value) {
      if (Atomics.compareExchange(this.word, 0, seen, seen + 1) === seen) return true;
    }
    return false;
  }

  add(): void {
    Atomics.add(this.word, 0, 1);
  }

  release(): void {
    Atomics.sub(this.word, 0, 1);
  }
}

/**
 * Until when (epoch ms) a worker may be silent because some thread's call may run to its deadline:
 * callers on other threads extend it, the worker's ThreadHost reads it (quietUntil) before calling it hung.
 */
export class SharedQuiet {
  private readonly word: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.word = new BigInt64Array(buffer);
  }

  get value(): number {
    return Number(Atomics.load(this.word, 0));
  }

  extend(untilMs: number): void {
    const until = BigInt(Math.ceil(untilMs));
    for (let seen = Atomics.load(this.word, 0); seen < until; seen = Atomics.load(this.word, 0)) {
      if (Atomics.compareExchange(this.word, 0, seen, until) === seen) return;
    }
  }
}

/**
 * How many threads have calls waiting for a pool's workers, each thread counted once while it waits:
 * a thread that frees a worker while others wait leaves it to them (they look again within their
 * poll interval) rather than claiming it again in the same turn, which would starve them.
 */
export class WaitingThreads {
  private readonly count: SharedCount;
  private counted = false;

  constructor(buffer?: SharedArrayBuffer) {
    this.count = new SharedCount(buffer);
  }

  get buffer(): SharedArrayBuffer {
    return this.count.buffer;
  }

  /** This thread's calls wait (or no longer do). */
  set(waits: boolean): void {
    if (waits === this.counted) return;
    this.counted = waits;
    if (waits) this.count.add();
    else this.count.release();
  }

  /** Other threads whose calls wait. */
  get others(): number {
    return this.count.value - (this.counted ? 1 : 0);
  }
}

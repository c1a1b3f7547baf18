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

/** Threads WaitingThreads tells apart; more share words (by slot modulo), which only blurs the hand-over. */
const WAITING_SLOTS = 256;

/**
 * Which threads have calls waiting for a pool's workers: a word per thread (by its slot: 0 is main,
 * engine threads 1..N-1) and their total. A thread that frees a worker while others wait leaves it to
 * them (they look again within their poll interval) rather than claiming it again in the same turn,
 * which would starve them. A lost thread's word is cleared by main (`clear`), so it does not count on.
 */
export class WaitingThreads {
  private readonly words: Int32Array;
  private readonly word: number;

  constructor(
    readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4 * (1 + WAITING_SLOTS)),
    slot = 0,
  ) {
    this.words = new Int32Array(buffer);
    this.word = 1 + (slot % WAITING_SLOTS);
  }

  /** This thread's calls wait (or no longer do). */
  set(waits: boolean): void {
    const [from, to] = waits ? [0, 1] : [1, 0];
    if (Atomics.compareExchange(this.words, this.word, from, to) === from) Atomics.add(this.words, 0, to - from);
  }

  /** Other threads whose calls wait. */
  get others(): number {
    return Atomics.load(this.words, 0) - Atomics.load(this.words, this.word);
  }

  /** Thread `slot` is gone: its calls wait no more. */
  static clear(buffer: SharedArrayBuffer, slot: number): void {
    new WaitingThreads(buffer, slot).set(false);
  }
}

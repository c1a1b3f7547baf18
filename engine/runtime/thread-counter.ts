/**
 * A count every thread of the per-core runtime adds to (an imposter's numberOfRequests) without
 * writing a cache line another thread writes: one BigInt64 slot per thread, 64 bytes apart; a read sums.
 */

/** BigInt64 elements between two threads' slots: 64 bytes, one cache line. */
const STRIDE = 8;

export class ThreadCounter {
  private readonly slots: BigInt64Array;

  /** A view of a counter's buffer (`ThreadCounter.forThreads`, possibly made by another thread). */
  constructor(buffer: SharedArrayBuffer) {
    this.slots = new BigInt64Array(buffer);
  }

  /** A new counter with a slot for each of `threads` threads (the main thread is slot 0). */
  static forThreads(threads: number): ThreadCounter {
    return new ThreadCounter(new SharedArrayBuffer(Math.max(1, threads) * STRIDE * 8));
  }

  get buffer(): SharedArrayBuffer {
    return this.slots.buffer as SharedArrayBuffer;
  }

  /** Adds one in `slot`'s line (a slot beyond the buffer, never expected, shares slot 0's). */
  add(slot: number): void {
    const at = slot * STRIDE;
    Atomics.add(this.slots, at < this.slots.length ? at : 0, 1n);
  }

  total(): number {
    let sum = 0n;
    for (let at = 0; at < this.slots.length; at += STRIDE) sum += Atomics.load(this.slots, at);
    return Number(sum);
  }

  /**
   * Makes the total `value` by moving slot 0 only: other threads keep adding to their own slots, and
   * an add that lands meanwhile counts on top of `value` (it came after the reset).
   */
  set(value: number): void {
    let others = 0n;
    for (let at = STRIDE; at < this.slots.length; at += STRIDE) others += Atomics.load(this.slots, at);
    Atomics.store(this.slots, 0, BigInt(value) - others);
  }
}

/**
 * Request-body bytes buffered at once across every connection sharing one budget (all imposter
 * ports and the front door of a manager), so many concurrent large uploads cannot take the process's
 * memory although each stays under the per-request cap. A body reserves its declared length (or each
 * chunk as it is announced) before it is buffered and releases it once handed to the handler.
 */
export class BodyBudget {
  private used = 0;
  /** The count in shared memory when threads share the budget (per-core runtime). */
  private readonly cell: BigInt64Array | undefined;

  /** `memory` (8 bytes): a count shared by every thread that builds a budget on it. */
  constructor(
    readonly limitBytes: number,
    readonly memory?: SharedArrayBuffer,
  ) {
    this.cell = memory && new BigInt64Array(memory);
  }

  /** Takes `bytes` from the budget; false (and nothing taken) when they do not fit. */
  reserve(bytes: number): boolean {
    if (this.cell) return this.reserveShared(BigInt(bytes));
    if (this.used + bytes > this.limitBytes) return false;
    this.used += bytes;
    return true;
  }

  private reserveShared(bytes: bigint): boolean {
    const cell = this.cell!;
    const limit = BigInt(this.limitBytes);
    for (;;) {
      const used = Atomics.load(cell, 0);
      if (used + bytes > limit) return false;
      if (Atomics.compareExchange(cell, 0, used, used + bytes) === used) return true;
    }
  }

  release(bytes: number): void {
    if (this.cell) Atomics.sub(this.cell, 0, BigInt(bytes));
    else this.used -= bytes;
  }

  get usedBytes(): number {
    return this.cell ? Number(Atomics.load(this.cell, 0)) : this.used;
  }
}

/** 256 MiB: four bodies at the default 64 MiB per-request cap. */
export const DEFAULT_BUFFERED_BODY_BYTES = 256 * 1024 * 1024;

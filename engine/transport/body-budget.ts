/**
 * Request-body bytes buffered at once across every connection sharing one budget (all imposter
 * ports and the front door of a manager), so many concurrent large uploads cannot take the process's
 * memory although each stays under the per-request cap. A body reserves its declared length (or each
 * chunk as it is announced) before it is buffered and releases it once handed to the handler.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly limitBytes: number) {}

  /** Takes `bytes` from the budget; false (and nothing taken) when they do not fit. */
  reserve(bytes: number): boolean {
    if (this.used + bytes > this.limitBytes) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used -= bytes;
  }

  get usedBytes(): number {
    return this.used;
  }
}

/** 256 MiB: four bodies at the default 64 MiB per-request cap. */
export const DEFAULT_BUFFERED_BODY_BYTES = 256 * 1024 * 1024;

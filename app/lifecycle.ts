/**
 * When a served plane ends, and why: `shutdown` ends it cleanly, a fatal accept-loop error ends it
 * with that error. The error is handed to the first `wait`/`join` caller; later calls resolve.
 */
export class PlaneLifecycle {
  private readonly ended: Promise<void>;
  private markEnded!: () => void;
  private failure: { error: unknown } | undefined;
  private done = false;

  constructor() {
    this.ended = new Promise<void>((resolve) => {
      this.markEnded = resolve;
    });
  }

  get isEnded(): boolean {
    return this.done;
  }

  /** The accept loop died (ignored once the plane has ended). */
  fail(error: unknown): void {
    if (this.done) return;
    this.failure = { error };
    this.finish();
  }

  finish(): void {
    this.done = true;
    this.markEnded();
  }

  /** Resolves when the plane has ended; rejects with the accept-loop error for its first caller only. */
  async wait(): Promise<void> {
    await this.ended;
    const failure = this.failure;
    this.failure = undefined;
    if (failure !== undefined) throw failure.error;
  }
}

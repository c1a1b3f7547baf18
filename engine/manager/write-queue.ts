import type { ApplyShared, CommitOptions, ConfigReplica } from './fleet-replica.js';

/**
 * The order of changes: every change to the imposter set or a stub list runs here one at a time, so
 * concurrent calls never interleave half-applied changes nor lose one another's edits. Under a fleet an
 * admin write is admitted by it first and shared once applied.
 */
export class WriteQueue {
  private queue: Promise<unknown> = Promise.resolve();
  /** Ports an admin write changed, collected while it runs under a fleet ('all' after DELETE /imposters). */
  private touched: Set<number> | 'all' | undefined;

  constructor(
    private readonly fleet: ConfigReplica | undefined,
    /** Sets one port to the fleet's config (a fleet that cannot share a write puts its ports back with it). */
    private readonly applyShared: ApplyShared,
  ) {}

  /** Notes a port the running admin write changed (to share it once the write is applied). */
  touch(port: number | 'all'): void {
    if (this.touched === undefined || this.touched === 'all') return;
    if (port === 'all') this.touched = 'all';
    else this.touched.add(port);
  }

  /** Admin writes: queued, and under a fleet admitted by it first and shared once applied. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const fleet = this.fleet;
    return this.queued(fleet ? () => this.shared(fleet, work) : work);
  }

  /**
   * A proxy recording under a fleet: queued and shared as an admin write is, but only if no other node
   * changed the imposter since this node applied it (else StaleWrite, and this node runs the newer config).
   */
  recording<T>(fleet: ConfigReplica, work: () => Promise<T>): Promise<T> {
    return this.queued(() => this.shared(fleet, work, { ifUnchanged: true }));
  }

  private async shared<T>(fleet: ConfigReplica, work: () => Promise<T>, options?: CommitOptions): Promise<T> {
    fleet.admit();
    this.touched = new Set();
    const commit = async () => {
      const touched = this.touched;
      this.touched = undefined;
      if (touched === 'all' || (touched && touched.size > 0)) await fleet.committed(touched === 'all' ? 'all' : [...touched], this.applyShared, options);
    };
    let result: T;
    try {
      result = await work();
    } catch (err) {
      // A write that failed part-way (a partial apply) still shares what it changed.
      await commit().catch(() => undefined);
      throw err;
    }
    await commit();
    return result;
  }

  /** Runs `work` after every change queued before it (the journal's clears, the fleet's replays: not shared). */
  queued<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

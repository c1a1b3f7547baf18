import type { ConnectionTimeouts } from './contract.js';

/** After the server's FIN, how long the peer has to close its side before the socket is destroyed. */
export const LINGER_MS = 5000;

/** Something with an absolute deadline (Date.now() ms; 0: none) that is dealt with once it passes. */
export interface Expiring {
  readonly deadline: number;
  expire(): void;
}

/**
 * One timer per listener checks every connection's deadline, so a request costs a field write rather
 * than a timer reset, and absolute limits hold against a client that trickles bytes (which an idle
 * socket timeout would not see).
 */
export class DeadlineSweep {
  private readonly items = new Set<Expiring>();
  private timer: NodeJS.Timeout | null = null;
  /** How often deadlines are checked; what polls that must see a state change (HTTP/2 streams) wait at most. */
  readonly intervalMs: number;

  constructor(timeouts: ConnectionTimeouts) {
    // A tenth of the shortest timeout, so expiry is at most 10% late; within [10 ms, 1 s].
    const shortest = Math.min(...[timeouts.keepAliveMs, timeouts.headersMs, timeouts.requestMs].filter((ms) => ms > 0), 10_000);
    this.intervalMs = Math.min(1000, Math.max(10, Math.floor(shortest / 10)));
  }

  add(item: Expiring): void {
    this.items.add(item);
    if (this.timer === null) {
      this.timer = setInterval(() => this.sweep(), this.intervalMs);
      this.timer.unref();
    }
  }

  delete(item: Expiring): void {
    this.items.delete(item);
    if (this.items.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private sweep(): void {
    const now = Date.now();
    for (const item of this.items) {
      const deadline = item.deadline;
      if (deadline !== 0 && deadline <= now) item.expire();
    }
  }
}

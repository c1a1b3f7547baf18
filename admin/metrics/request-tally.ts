/**
 * `svc_requests_total{method,status}` counted with a plain array increment per request: a
 * prom-client `inc()` (even on a cached child) hashes its labels on every call, ~300 ns here, which
 * alone is ~3% of a static-stub request. Counts are handed to prom-client at scrape time.
 */
const STATUS_SLOTS = 1000;

interface MethodCounts {
  counts: Float64Array;
  reported: Float64Array;
}

export class RequestTally {
  private readonly byMethod = new Map<string, MethodCounts>();

  add(method: string, status: number): void {
    let entry = this.byMethod.get(method);
    if (entry === undefined) {
      entry = { counts: new Float64Array(STATUS_SLOTS), reported: new Float64Array(STATUS_SLOTS) };
      this.byMethod.set(method, entry);
    }
    entry.counts[status >= 0 && status < STATUS_SLOTS ? status : 0] += 1;
  }

  /** Calls `report` with each (method, status) increment since the last drain. */
  drain(report: (method: string, status: string, delta: number) => void): void {
    for (const [method, entry] of this.byMethod) {
      const { counts, reported } = entry;
      for (let status = 0; status < STATUS_SLOTS; status += 1) {
        const delta = counts[status]! - reported[status]!;
        if (delta === 0) continue;
        reported[status] = counts[status]!;
        report(method, String(status), delta);
      }
    }
  }
}

/**
 * `svc_accepted_connections_total{worker}` the same way: under mountebank's default `Connection: close`
 * every request is an accept, so an accept costs an array increment, handed to prom-client at scrape.
 */
export class AcceptTally {
  private readonly counts: number[] = [];

  add(slot: number): void {
    const counts = this.counts;
    while (counts.length <= slot) counts.push(0);
    counts[slot]! += 1;
  }

  /** Calls `report` with each engine-thread slot's accepts since the last drain. */
  drain(report: (slot: string, delta: number) => void): void {
    const counts = this.counts;
    for (let slot = 0; slot < counts.length; slot += 1) {
      const delta = counts[slot]!;
      if (delta === 0) continue;
      counts[slot] = 0;
      report(String(slot), delta);
    }
  }
}

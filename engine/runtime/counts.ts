/**
 * Requests an engine thread answered itself, counted exactly without a message per request: the
 * thread adds to a counter in its own shared table, after announcing each new (listener, method,
 * status) key on its control channel; the main thread drains those announcements synchronously and
 * reads the tables whenever it collects (before a metrics scrape, and every second).
 */
import type { CountKey } from './protocol.js';

const TABLE_SIZE = 1024;

/** The engine thread's side. */
export class CountTables {
  private readonly tables: Uint32Array[] = [];
  /** Listener id → method → status → counter index. */
  private readonly keys = new Map<number, Map<string, Map<number, number>>>();
  private next = 0;

  constructor(private readonly announce: (key: CountKey) => void) {}

  add(id: number, method: string, status: number): void {
    let byMethod = this.keys.get(id);
    if (byMethod === undefined) this.keys.set(id, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let at = byStatus.get(status);
    if (at === undefined) {
      at = this.next++;
      let table: SharedArrayBuffer | undefined;
      if (at % TABLE_SIZE === 0) {
        table = new SharedArrayBuffer(TABLE_SIZE * 4);
        this.tables.push(new Uint32Array(table));
      }
      // Announced before the first count, so a reader that sees the count knows its key.
      this.announce({ id, method, status, at, table });
      byStatus.set(status, at);
    }
    Atomics.add(this.tables[(at / TABLE_SIZE) | 0], at % TABLE_SIZE, 1);
  }

  /** A listener closed: its keys go (the main thread has collected or drops them). */
  drop(id: number): void {
    this.keys.delete(id);
  }
}

/** The main thread's side, one per engine thread (a restarted thread starts a new one). */
export class CountReader {
  private readonly tables: Uint32Array[] = [];
  private readonly keys: Array<CountKey & { seen: number }> = [];

  learn(key: CountKey): void {
    if (key.table) this.tables.push(new Uint32Array(key.table));
    this.keys.push({ ...key, seen: 0 });
  }

  /** Reports what each key counted since the last collection. */
  collect(report: (id: number, method: string, status: number, times: number) => void): void {
    for (const key of this.keys) {
      const value = Atomics.load(this.tables[(key.at / TABLE_SIZE) | 0], key.at % TABLE_SIZE);
      // Unsigned difference: a counter may wrap between collections a second apart.
      const times = (value - key.seen) >>> 0;
      if (times === 0) continue;
      key.seen = value;
      report(key.id, key.method, key.status, times);
    }
  }
}

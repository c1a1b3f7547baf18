import type { Redis } from 'ioredis';
import type { JournalEntry } from '../journal/index.js';
import type { JournalOwner, RecordedRequest, SharedJournal } from '../manager/index.js';
import type { Logger } from '../log/index.js';
import { errors, errorText } from '../model/index.js';

/** docs/limits.md: the journal keeps 10,000 records per imposter, fleet-wide as on one node. */
export const JOURNAL_CAP = 10_000;
/** How long a request count waits to be shared with others (an imposter that does not record). */
const COUNT_FLUSH_MS = 100;

/** The scripts a fleet journal runs (defineCommand'ed on the fleet's writer connection). */
export interface JournalCommands {
  svcJournalAppend(stream: string, meta: string, ...args: Array<string | number>): Promise<number>;
  svcJournalClear(stream: string, meta: string, ...indices: number[]): Promise<number>;
}

/** What the fleet gives each imposter's journal. */
export interface FleetJournalOptions {
  port: number;
  node: string;
  /** The fleet's key prefix. */
  prefix: string;
  /** The channel record notices go to (other nodes' SSE). */
  channel: string;
  /** The fleet's writer connection while it is ready; undefined while Redis is away. */
  writer: () => (Redis & JournalCommands) | undefined;
  log: Logger;
}

interface Pending {
  json: string;
  done: (index: number | undefined) => void;
}

type StreamEntry = [id: string, fields: string[]];

function entryOf([id, fields]: StreamEntry): JournalEntry<RecordedRequest> {
  return { index: Number(id.slice(2)), value: JSON.parse(fields[1]) as RecordedRequest };
}

/**
 * One imposter's journal in a fleet (issue 20, docs/runtime.md): its records in one Redis Stream with
 * fleet-wide indices, written before the response is sent, batched per event-loop turn (one script
 * call stores every record answered in that turn). The imposter's ring is a mirror brought up to date
 * before each admin read. Redis away: records are counted as lost, reads say so (degraded).
 */
export class FleetJournal implements SharedJournal {
  private owner: JournalOwner | undefined;
  private batch: Pending[] = [];
  private scheduled = false;
  private countTimer: NodeJS.Timeout | undefined;
  /** Requests counted here and not yet added to the shared count. */
  private unsharedCount = 0;
  private sharedCount = 0;
  /** Records this node could not store and has not yet reported to Redis. */
  private unsharedLost = 0;
  /** The clear generation the mirror holds (a clear anywhere bumps it: reload). */
  private epoch: string | undefined;
  private warned = false;
  private readonly stream: string;
  private readonly meta: string;
  private readonly cycles: string;

  constructor(private readonly options: FleetJournalOptions) {
    this.stream = `${options.prefix}journal:${options.port}`;
    this.meta = `${this.stream}:meta`;
    this.cycles = `${options.prefix}cycles:${options.port}`;
  }

  attach(owner: JournalOwner): void {
    this.owner = owner;
  }

  get count(): number {
    return this.sharedCount + this.unsharedCount;
  }

  counted(): void {
    this.unsharedCount += 1;
    if (this.countTimer || this.scheduled) return;
    this.countTimer = setTimeout(() => {
      this.countTimer = undefined;
      if (!this.scheduled) void this.flush();
    }, COUNT_FLUSH_MS);
    this.countTimer.unref();
  }

  append(record: RecordedRequest): Promise<number | undefined> {
    return new Promise((done) => {
      this.batch.push({ json: JSON.stringify({ ...record, node: this.options.node }), done });
      if (this.scheduled) return;
      this.scheduled = true;
      // Every record answered in this turn of the loop goes in one script call.
      setImmediate(() => {
        this.scheduled = false;
        void this.flush();
      });
    });
  }

  /** Stores the batch and the counts; never rejects (what fails is counted as lost). */
  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    const countDelta = this.unsharedCount;
    const lostDelta = this.unsharedLost;
    if (batch.length === 0 && countDelta === 0 && lostDelta === 0) return;
    this.unsharedCount = 0;
    this.unsharedLost = 0;
    const writer = this.options.writer();
    try {
      if (!writer) throw new Error('redis is unreachable');
      const { port, node, channel } = this.options;
      const args: Array<string | number> = [JOURNAL_CAP, countDelta, lostDelta, channel, port, node];
      for (const pending of batch) args.push(pending.json);
      const first = Number(await writer.svcJournalAppend(this.stream, this.meta, ...args));
      this.sharedCount += countDelta;
      this.warned = false;
      for (const [i, pending] of batch.entries()) pending.done(first + i);
    } catch (err) {
      // Traffic goes on: the counts wait for Redis, the records are a gap that reads report.
      this.unsharedCount += countDelta;
      this.unsharedLost += lostDelta + batch.length;
      if (this.owner && batch.length > 0) this.owner.ring.gap = true;
      if (!this.warned && batch.length > 0) {
        this.warned = true;
        this.options.log.warn(`fleet: imposter ${this.options.port}: records not stored (${errorText(err)}); reads report the gap`);
      }
      for (const pending of batch) pending.done(undefined);
    }
  }

  async sync(): Promise<void> {
    const owner = this.owner;
    if (!owner) return;
    const ring = owner.ring;
    const writer = this.options.writer();
    if (!writer) {
      ring.gap = true;
      return;
    }
    try {
      // This node's counts first, so its own reads include them.
      if (this.unsharedCount > 0 || this.unsharedLost > 0) await this.flush();
      const replies = await writer.multi().hgetall(this.meta).xrange(this.stream, `(0-${ring.tipIndex}`, '+').exec();
      if (!replies || replies[0][0] || replies[1][0]) throw replies?.[0][0] ?? replies?.[1][0] ?? new Error('transaction aborted');
      const meta = replies[0][1] as Record<string, string>;
      let entries = replies[1][1] as StreamEntry[];
      const epoch = meta.epoch ?? '0';
      if (epoch !== this.epoch) {
        // Cleared somewhere since (or never read): the whole stream again.
        ring.restart();
        entries = (await writer.xrange(this.stream, '-', '+')) as StreamEntry[];
        this.epoch = epoch;
      }
      ring.mirror(entries.map(entryOf), Number(meta.evicted ?? 0), Number(meta.tip ?? 0));
      this.sharedCount = Number(meta.count ?? 0);
      ring.gap = Number(meta.lost ?? 0) > 0 || this.unsharedLost > 0;
    } catch (err) {
      ring.gap = true;
      this.options.log.debug(`fleet: imposter ${this.options.port}: journal read degraded (${errorText(err)})`);
    }
  }

  async clear(indices?: number[]): Promise<void> {
    if (indices !== undefined && indices.length === 0) return;
    const writer = this.options.writer();
    try {
      if (!writer) throw new Error('redis is unreachable');
      await writer.svcJournalClear(this.stream, this.meta, ...(indices ?? []));
    } catch (err) {
      throw errors.serviceUnavailable(`fleet: the journal was not cleared on any node (${errorText(err)})`);
    }
    if (indices === undefined) {
      this.unsharedCount = 0;
      this.unsharedLost = 0;
    }
  }

  async position(key: string): Promise<number> {
    const writer = this.options.writer();
    if (!writer) throw new Error('redis is unreachable');
    return (await writer.hincrby(this.cycles, key, 1)) - 1;
  }

  /** Whether anyone on this node listens for records (SSE). */
  listening(): boolean {
    return this.owner?.listening() === true;
  }

  /** Another node stored records `first`..`first + n - 1`: announced here when someone listens (SSE). */
  async foreign(first: number, n: number): Promise<void> {
    const owner = this.owner;
    const writer = this.options.writer();
    if (!owner || !writer || !owner.listening()) return;
    try {
      const entries = (await writer.xrange(this.stream, `0-${first}`, `0-${first + n - 1}`)) as StreamEntry[];
      for (const entry of entries.map(entryOf)) owner.notify(entry.index, entry.value);
    } catch {
      // Events are best effort (docs/metrics-and-events.md); savedRequests still has them.
    }
  }

  close(): void {
    clearTimeout(this.countTimer);
    this.countTimer = undefined;
  }
}

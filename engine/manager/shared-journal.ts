import type { JournalRing } from '../journal/index.js';
import type { RecordedRequest } from './recorded-request.js';

/** What a shared journal tells the imposter it serves: its mirror ring and how to announce a record. */
export interface JournalOwner {
  /** The imposter's ring, kept as a mirror of the shared stream (read by savedRequests, verify, GET). */
  ring: JournalRing<RecordedRequest>;
  /** Observers hear of a record (SSE `request` events), this node's or another's. */
  notify(index: number, record: RecordedRequest): void;
  /** Whether anyone listens for records now (records other nodes stored are fetched only then). */
  listening(): boolean;
}

/**
 * One imposter's journal, counters and cycles shared by a fleet (engine/fleet implements it; defined
 * here so the manager never imports it). Every method settles: Redis failing never fails a request.
 */
export interface SharedJournal {
  attach(owner: JournalOwner): void;
  /** Stores a final record fleet-wide; its fleet index, or undefined when it could not be stored (a gap). */
  append(record: RecordedRequest): Promise<number | undefined>;
  /** numberOfRequests + 1 on this node (shared in batches). */
  counted(): void;
  /** Fleet-wide numberOfRequests as of the last sync, with what this node has not shared yet. */
  readonly count: number;
  /** Brings the mirror ring up to the shared stream; on failure the ring is marked degraded (ring.gap). */
  sync(): Promise<void>;
  /** Removes records fleet-wide (those with `indices`, else all, numberOfRequests then 0). */
  clear(indices?: number[]): Promise<void>;
  /** The next 0-based position of the stub `key`'s response cycle, counted fleet-wide (rejects when Redis is away). */
  position(key: string): Promise<number>;
  /** The imposter stopped on this node. */
  close(): void;
}

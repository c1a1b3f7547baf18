import type { MockRequest } from '../model/index.js';
import type { TriedEntry as MatchTried } from '../match/index.js';
import type { CompiledResponse } from '../respond/index.js';
import type { ResponseSink } from '../transport/index.js';
import type { JournalEntry } from '../journal/index.js';
import type { GatedRequest } from '../state/index.js';
import type { RecordedRequest } from './record.js';

/**
 * The stage an exchange is in decides how its answer is finished (Imposter.answer): only what the
 * respond stage answers gets CORS headers, and a debug report never stamps its record (docs/metrics-and-events.md).
 */
export type ExchangeStage = 'match' | 'respond' | 'debug';

/** A response the stateOps stage took from the cycle before its ops ran (so no other request gets it). */
export interface TakenResponse {
  compiled: CompiledResponse;
  configIndex: number;
}

/**
 * One request inside an imposter, from the moment it was read until it is answered: what the stages
 * of the request path (match, respond, faults, answer: send, count, record) read and write.
 */
export interface Exchange {
  readonly request: MockRequest;
  readonly sink: ResponseSink;
  /** The request target as received (proxies forward it). */
  readonly url: string;
  /** The journal entry when the imposter records; stamped with status and latency when answered. */
  readonly record: JournalEntry<RecordedRequest> | undefined;
  /** performance.now() at arrival when recording, else 0 (the clock is read only when needed). */
  readonly started: number;
  /** Stubs tried and why they missed, kept for the journal's matchOutcome (only when recording). */
  readonly trace: MatchTried[] | undefined;
  stage: ExchangeStage;
  /** The stub index matching starts from: past a stub whose `_svc.script` passed (docs/scripts.md). */
  from: number;
  /** `trace` length when this matching attempt began: a lost scenario move drops what it added. */
  mark: number;
  /** Spaces and scenario states the request is matched under (docs/imposters.md rule 5); undefined without gates. */
  gated: GatedRequest | undefined;
  /** The stub that answers, -1 for none (the default response). */
  index: number;
  taken: TakenResponse | undefined;
  /** The record being stored (a fleet's shared journal): what the answer waits for. */
  stored: Promise<void> | undefined;
  /** The fleet-wide cycle position the stub drew (-1: none yet; -2: Redis failed, this node's cycle answers). */
  position: number;
}

/**
 * A new exchange in the match stage. An object literal with every field, not a class: one allocation
 * of one shape; on Node 20 a class with field initialisers (ES2022 define semantics) cost a static
 * stub's handle() about 25% more in process, the literal costs what the path cost before it existed.
 */
export function openExchange(
  request: MockRequest,
  sink: ResponseSink,
  url: string,
  record: JournalEntry<RecordedRequest> | undefined,
  started: number,
): Exchange {
  return {
    request,
    sink,
    url,
    record,
    started,
    trace: record ? [] : undefined,
    stage: 'match',
    from: 0,
    mark: 0,
    gated: undefined,
    index: -1,
    taken: undefined,
    stored: undefined,
    position: -1,
  };
}

import type { HeaderMap, MockRequest, QueryMap } from '../model/index.js';
import { TRIED_CAP } from '../match/index.js';

export interface TriedEntry {
  stubIndex: number;
  stubId?: string;
  why: { reason: string; predicateIndex?: number };
}

export interface MatchOutcome {
  matched: boolean;
  stubIndex?: number;
  stubId?: string;
  tried?: TriedEntry[];
  triedOmitted?: number;
}

/** A journal entry (docs/recording-and-verify.md); `status`/`latencyMs`/`matchOutcome` are filled once the response is sent. */
export interface RecordedRequest {
  requestFrom: string;
  method: string;
  path: string;
  query: QueryMap;
  headers: HeaderMap;
  body?: string;
  _mode?: 'binary';
  ip: string;
  form?: QueryMap;
  timestamp: string;
  status?: number;
  latencyMs?: number;
  matchOutcome?: MatchOutcome;
}

export function recordOf(request: MockRequest): RecordedRequest {
  const record: RecordedRequest = {
    requestFrom: request.requestFrom,
    method: request.method,
    path: request.path,
    query: request.query,
    headers: request.headers,
    ip: request.ip,
    timestamp: new Date().toISOString(),
  };
  if (request.rawBody.length > 0) {
    if (request.isBinary) {
      record.body = request.rawBody.toString('base64');
      record._mode = 'binary';
    } else {
      record.body = request.body;
    }
  }
  if (request.form) record.form = request.form;
  return record;
}

/** The `tried` list capped at 25 with the rest counted (docs/limits.md). */
export function outcomeOf(stubIndex: number, stubId: string | undefined, tried: TriedEntry[] | undefined): MatchOutcome {
  const outcome: MatchOutcome = stubIndex >= 0 ? { matched: true, stubIndex } : { matched: false };
  if (stubIndex >= 0 && stubId !== undefined) outcome.stubId = stubId;
  if (tried && tried.length > 0) {
    outcome.tried = tried.slice(0, TRIED_CAP);
    if (tried.length > TRIED_CAP) outcome.triedOmitted = tried.length - TRIED_CAP;
  }
  return outcome;
}

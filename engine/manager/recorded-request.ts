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

/** A journal entry (SPEC §2.9); `status`/`latencyMs`/`matchOutcome` are filled once the response is sent. */
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

/** Rebuilds the request predicates see from a journal entry. */
export function requestOfRecord(record: RecordedRequest): MockRequest {
  const rawBody = record.body === undefined ? Buffer.alloc(0) : Buffer.from(record.body, record._mode === 'binary' ? 'base64' : 'utf8');
  return {
    requestFrom: record.requestFrom,
    method: record.method,
    path: record.path,
    query: record.query,
    headers: record.headers,
    body: record._mode === 'binary' ? rawBody.toString('utf8') : (record.body ?? ''),
    rawBody,
    form: record.form,
    ip: record.ip,
    isBinary: record._mode === 'binary',
  };
}

/** The `tried` list capped at 25 with the rest counted (SPEC §8). */
export function outcomeOf(stubIndex: number, stubId: string | undefined, tried: TriedEntry[] | undefined): MatchOutcome {
  const outcome: MatchOutcome = stubIndex >= 0 ? { matched: true, stubIndex } : { matched: false };
  if (stubIndex >= 0 && stubId !== undefined) outcome.stubId = stubId;
  if (tried && tried.length > 0) {
    outcome.tried = tried.slice(0, TRIED_CAP);
    if (tried.length > TRIED_CAP) outcome.triedOmitted = tried.length - TRIED_CAP;
  }
  return outcome;
}

export interface RequestClause {
  kind: 'header' | 'flow_id' | 'method' | 'path';
  name?: string;
  value: string;
}

/** Parses `match=` clauses of SPEC §4.4; returns an error message for a malformed clause. */
export function parseClauses(values: string[]): RequestClause[] | string {
  const clauses: RequestClause[] = [];
  for (const raw of values) {
    if (raw.startsWith('header:')) {
      const rest = raw.slice('header:'.length);
      const eq = rest.indexOf('=');
      if (eq <= 0) return `invalid match clause '${raw}': expected header:<Name>=<Value>`;
      clauses.push({ kind: 'header', name: rest.slice(0, eq).toLowerCase(), value: rest.slice(eq + 1) });
      continue;
    }
    const eq = raw.indexOf('=');
    const kind = eq > 0 ? raw.slice(0, eq) : '';
    if (kind !== 'flow_id' && kind !== 'method' && kind !== 'path') {
      return `invalid match clause '${raw}': expected header:<Name>=<Value>, flow_id=, method= or path=`;
    }
    clauses.push({ kind, value: raw.slice(eq + 1) });
  }
  return clauses;
}

function headerValues(headers: HeaderMap, lowerName: string): string[] {
  const out: string[] = [];
  for (const name in headers) {
    if (name.toLowerCase() !== lowerName) continue;
    const value = headers[name];
    if (Array.isArray(value)) out.push(...value);
    else out.push(value);
  }
  return out;
}

/** AND of all clauses; `flowIdOf` resolves the flow id of a recorded request (undefined: it has none, matching no `flow_id`). */
export function clausesMatch(clauses: RequestClause[], record: RecordedRequest, flowIdOf: (r: RecordedRequest) => string | undefined): boolean {
  for (const clause of clauses) {
    switch (clause.kind) {
      case 'header':
        if (!headerValues(record.headers, clause.name as string).includes(clause.value)) return false;
        break;
      case 'method':
        if (record.method !== clause.value) return false;
        break;
      case 'path':
        if (record.path !== clause.value) return false;
        break;
      case 'flow_id':
        if (flowIdOf(record) !== clause.value) return false;
        break;
    }
  }
  return true;
}

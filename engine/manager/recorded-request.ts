import type { HeaderMap, MockRequest } from '../model/index.js';
import type { RecordedRequest } from '../serve/index.js';

export type { RecordedRequest, MatchOutcome } from '../serve/index.js';

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

export interface RequestClause {
  kind: 'header' | 'flow_id' | 'method' | 'path';
  name?: string;
  value: string;
}

/** Parses `match=` clauses of docs/recording-and-verify.md; returns an error message for a malformed clause. */
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

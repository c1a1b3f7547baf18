import type { MockRequest } from '../model/index.js';
import type { StubExplanation } from '../match/index.js';
import type { CompiledResponse } from '../respond/index.js';

/** docs/limits.md: the debug report's body preview length. */
export const BODY_PREVIEW_CHARS = 500;

export interface DebugImposter {
  port: number;
  name?: unknown;
  protocol: string;
}

export interface DebugStub {
  config: Record<string, unknown>;
  /** The response the stub would serve next, compiled (what the preview shows; the cycle is not moved). */
  upcoming: CompiledResponse | undefined;
}

export type DebugOutcome = { matched: number } | { unmatched: string };

/** Header `X-Svc-Debug: true` (any case) or `1`, looked up on the raw header list without building a map. */
export function wantsDebug(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 11 || name.toLowerCase() !== 'x-svc-debug') continue;
    const value = rawHeaders[i + 1]!.trim().toLowerCase();
    return value === 'true' || value === '1';
  }
  return false;
}

function requestView(request: MockRequest): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() !== 'x-svc-debug') headers[name] = value;
  }
  const out: Record<string, unknown> = { method: request.method, path: request.path };
  if (Object.keys(request.query).length > 0) out.query = request.query;
  out.headers = headers;
  if (request.rawBody.length > 0) out.body = request.isBinary ? request.rawBody.toString('base64') : request.body;
  return out;
}

function preview(upcoming: CompiledResponse | undefined): Record<string, unknown> {
  if (!upcoming) return { responseType: 'is' };
  const out: Record<string, unknown> = { responseType: upcoming.type };
  const prepared = upcoming.prepared;
  if (upcoming.type === 'is' && prepared) {
    const binary = (upcoming.config.is as Record<string, unknown> | undefined)?._mode === 'binary';
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of prepared.headers) {
      const current = headers[name];
      headers[name] = current === undefined ? value : [...(Array.isArray(current) ? current : [current]), value];
    }
    out.statusCode = prepared.statusCode;
    out.headers = headers;
    out.bodyPreview = prepared.body.toString(binary ? 'base64' : 'utf8').slice(0, BODY_PREVIEW_CHARS);
  }
  return out;
}

/**
 * The JSON match report of docs/metrics-and-events.md. `candidates` (the dashboard's explain call only) adds each
 * stub's failing predicates with expected and actual values to `matchResult`; the wire report has none.
 */
export function debugReport(
  request: MockRequest,
  imposter: DebugImposter,
  stubs: readonly DebugStub[],
  outcome: DebugOutcome,
  candidates?: readonly StubExplanation[],
): Record<string, unknown> {
  const info: Record<string, unknown> = { port: imposter.port };
  if (imposter.name !== undefined) info.name = imposter.name;
  info.protocol = imposter.protocol;
  info.stubCount = stubs.length;
  let matchResult: Record<string, unknown>;
  if ('matched' in outcome) {
    const stub = stubs[outcome.matched]!;
    matchResult = { matched: true, stubIndex: outcome.matched };
    if (typeof stub.config.id === 'string') matchResult.stubId = stub.config.id;
    matchResult.predicates = stub.config.predicates ?? [];
    matchResult.responsePreview = preview(stub.upcoming);
  } else {
    matchResult = {
      matched: false,
      reason: outcome.unmatched,
      allStubs: stubs.map((stub, index) => {
        const entry: Record<string, unknown> = { index };
        if (typeof stub.config.id === 'string') entry.id = stub.config.id;
        entry.predicates = stub.config.predicates ?? [];
        entry.responseCount = Array.isArray(stub.config.responses) ? stub.config.responses.length : 0;
        return entry;
      }),
    };
  }
  if (candidates) matchResult.candidates = candidates;
  return { debug: true, request: requestView(request), imposter: info, matchResult };
}

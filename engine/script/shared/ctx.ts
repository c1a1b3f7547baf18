/**
 * The `ctx` object of docs/scripts.md, built where the script runs (the worker thread, or the CLI) from
 * plain data. State operations go through a synchronous `StateCall`: in the worker it blocks on the
 * main thread's FlowStore, in `svc script eval` it is an in-memory map.
 */
import type { ScriptRequestData, ScriptResponseData, StateOp, StubInfo } from './protocol.js';

export type { StateOp } from './protocol.js';

/** Runs one state operation for a flow and returns its result, or throws (a backend failure). */
export type StateCall = (flowId: string, op: StateOp, args: unknown[]) => unknown;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface CtxInput {
  request: ScriptRequestData;
  /** decorate placement only. */
  response?: ScriptResponseData;
  flowId: string;
  stub?: StubInfo;
  state: StateCall;
  log: (level: LogLevel, message: string) => void;
}

// biome-ignore lint/suspicious/noExplicitAny: any function must fit, whatever its parameters (unknown[] would reject them).
type Handle = Record<string, (...args: any[]) => unknown>;

function keyOf(key: unknown): string {
  if (typeof key !== 'string') throw new Error('state: key must be a string');
  return key;
}

function numberOf(n: unknown, what: string): number {
  const value = typeof n === 'bigint' ? Number(n) : n;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`state: ${what} must be a number`);
  return value;
}

/** JSON-safe copy of a script value (Rhai integers beyond 2^53 arrive as bigint). */
function plain(value: unknown): unknown {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as unknown;
}

/** `ctx.state` for one flow: every SPEC spelling (snake_case for Rhai, camelCase for JavaScript). */
export function stateHandle(flowId: string, call: StateCall): Handle {
  const op = (name: StateOp, ...args: unknown[]) => call(flowId, name, args);
  const incrBy = (key: unknown, n: unknown) => op('incrBy', keyOf(key), numberOf(n, 'increment'));
  const getOr = (key: unknown, fallback: unknown) => {
    const value = op('get', keyOf(key));
    return value === undefined ? fallback : value;
  };
  return {
    get: (key: unknown) => op('get', keyOf(key)) ?? null,
    get_or: getOr,
    getOr,
    set: (key: unknown, value: unknown) => void op('set', keyOf(key), plain(value)),
    exists: (key: unknown) => op('exists', keyOf(key)),
    delete: (key: unknown) => op('delete', keyOf(key)),
    incr: (key: unknown) => incrBy(key, 1),
    incr_by: incrBy,
    incrBy,
    cas: (key: unknown, expected: unknown, next: unknown) => op('cas', keyOf(key), plain(expected), plain(next)),
    ttl: (keyOrSeconds: unknown, seconds?: unknown) => {
      if (seconds === undefined) return void op('expireFlow', numberOf(keyOrSeconds, 'seconds'));
      return op('expireKey', keyOf(keyOrSeconds), numberOf(seconds, 'seconds'));
    },
    clear: () => void op('clear'),
  };
}

function headerLookup(headers: Record<string, string | string[]>): (name: unknown) => string | null {
  return (name) => {
    const value = headers[String(name).toLowerCase()];
    return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
  };
}

/** `.json` of a body: the parsed value, or absent when the body is not JSON. */
function withJson(target: Record<string, unknown>, body: string | null | undefined): void {
  if (!body) return;
  const first = body.trimStart()[0];
  // Only text that can be a JSON document is tried (a bare word is not worth a throw).
  if (first !== '{' && first !== '[' && first !== '"' && !/^[-\d]/.test(first ?? '') && !/^(true|false|null)\b/.test(body.trimStart())) return;
  try {
    target.json = JSON.parse(body) as unknown;
  } catch {
    // Not JSON: `json` stays absent (docs/scripts.md).
  }
}

function lowerKeys(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

export function buildCtx(input: CtxInput): Record<string, unknown> {
  const { request: req } = input;
  const headers = lowerKeys(req.headers);
  const request: Record<string, unknown> = {
    method: req.method,
    path: req.path,
    query: req.query,
    pathParams: req.pathParams,
    headers,
    body: req.body,
    header: headerLookup(headers),
  };
  if (req.isBinary !== undefined) request.isBinary = req.isBinary;
  if (!req.isBinary) withJson(request, req.body);
  const logger: Record<string, (...args: unknown[]) => void> = {};
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    logger[level] = (...args: unknown[]) => input.log(level, args.map((a) => (typeof a === 'string' ? a : JSON.stringify(plain(a)))).join(' '));
  }
  const ctx: Record<string, unknown> = {
    request,
    state: stateHandle(input.flowId, input.state),
    store: { flow: (id: unknown) => stateHandle(String(id), input.state) },
    flowId: input.flowId,
    logger,
  };
  const stub: Record<string, unknown> = {};
  if (input.stub?.id !== undefined) stub.id = input.stub.id;
  if (input.stub?.scenarioName !== undefined) stub.scenarioName = input.stub.scenarioName;
  if (input.stub?.scenarioState !== undefined) stub.scenarioState = input.stub.scenarioState;
  ctx.stub = stub;
  if (input.response) {
    const resHeaders = lowerKeys(input.response.headers);
    const response: Record<string, unknown> = {
      status: input.response.status,
      headers: resHeaders,
      body: input.response.body,
      header: headerLookup(resHeaders),
    };
    withJson(response, input.response.body);
    ctx.response = response;
  }
  return ctx;
}

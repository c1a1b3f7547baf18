/**
 * The `_svc.script` response type (docs/scripts.md): the script runs on the script workers with `ctx`,
 * and its result constructor becomes the answer. Failures follow docs/errors.md: an error is a 500
 * envelope with `x-svc-script-error: true`, the deadline a 504 with that header and
 * `x-svc-script-timeout: true`. `delay(ms)` waits and then passes through, like `pass()`.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorText, requiredStateOf, scenarioNameOf, SvcFailure, type MockRequest } from '../../model/index.js';
import type { FlowStore } from '../../state/index.js';
import {
  compileRoutePattern,
  resolveScript,
  type PathParams,
  type Placement,
  type RunOutcome,
  type ScriptRequestData,
  type ScriptResponseData,
  type ScriptResult,
  type ScriptSettings,
  type ScriptSource,
  type StubInfo,
  type ScriptRunner,
} from '../../script/svc/index.js';
import { errorResponse } from './error-response.js';
import type { PreparedResponse } from './is-response.js';

/** What an imposter lends its `_svc.script` steps. */
export interface SvcScripts {
  settings: ScriptSettings;
  /** The imposter's port: its JavaScript sandbox. */
  scope: number;
  runner(): ScriptRunner;
  store(): FlowStore;
  flowIdOf(request: MockRequest): string;
  /** Metrics: one run and, when it failed, why. */
  observe(ruleId: string, outcome: RunOutcome, durationMs: number): void;
}

/** Where script runs are counted (svc_script_* metrics). */
export interface ScriptObserver {
  onScript(ruleId: string, result: string, durationMs: number): void;
  onScriptError(ruleId: string, errorType: string): void;
}

/** One run counted: its result and, when it failed, why. */
export function observeScript(observer: ScriptObserver, ruleId: string, outcome: RunOutcome, durationMs: number): void {
  observer.onScript(ruleId, outcome.ok ? 'ok' : outcome.errorType === 'timeout' ? 'timeout' : 'error', durationMs);
  if (!outcome.ok) observer.onScriptError(ruleId, outcome.errorType);
}

/** A script compiled for one place in a stub: its source and the stub facts `ctx` shows. */
export interface CompiledScript {
  source: ScriptSource;
  placement: Placement;
  pathParams: PathParams;
  stub: StubInfo;
}

export function compileScript(spec: unknown, placement: Placement, settings: ScriptSettings, stub: Record<string, unknown>): CompiledScript {
  const info: StubInfo = {};
  if (typeof stub.id === 'string') info.id = stub.id;
  const scenarioName = scenarioNameOf(stub);
  if (scenarioName !== undefined) {
    info.scenarioName = scenarioName;
    // The state the stub is eligible in (docs/scripts.md), known when stubs change: no store read per run.
    const required = requiredStateOf(stub);
    if (required !== undefined) info.scenarioState = required;
  }
  return {
    source: resolveScript(spec, settings),
    placement,
    pathParams: compileRoutePattern(typeof stub.routePattern === 'string' ? stub.routePattern : undefined),
    stub: info,
  };
}

export function scriptRequest(request: MockRequest, pathParams: PathParams): ScriptRequestData {
  return {
    method: request.method,
    path: request.path,
    query: request.query,
    pathParams: pathParams(request.path),
    headers: request.headers,
    body: request.isBinary ? request.rawBody.toString('base64') : request.body,
    isBinary: request.isBinary,
  };
}

export interface ScriptCall {
  request: MockRequest;
  response?: ScriptResponseData;
  ruleId: string;
}

/** Runs a compiled script for a request; never rejects (failures are outcomes). */
export async function runScript(script: CompiledScript, scripts: SvcScripts, call: ScriptCall): Promise<RunOutcome> {
  const started = performance.now();
  const flowId = scripts.flowIdOf(call.request);
  let outcome: RunOutcome;
  try {
    outcome = await scripts.runner().run({
      engine: script.source.engine,
      scope: scripts.scope,
      source: script.source.code,
      placement: script.placement,
      request: scriptRequest(call.request, script.pathParams),
      response: call.response,
      flowId,
      stub: script.stub,
      timeoutMs: scripts.settings.timeoutMs,
      store: scripts.store(),
    });
  } catch (err) {
    // The runner resolves every run to an outcome; a throw here is the host failing, not the script.
    outcome = { ok: false, errorType: 'host', message: errorText(err) };
  }
  scripts.observe(call.ruleId, outcome, performance.now() - started);
  return outcome;
}

const ERROR_HEADERS: Array<[string, string]> = [
  ['Content-Type', 'application/json'],
  ['x-svc-script-error', 'true'],
];
const TIMEOUT_HEADERS: Array<[string, string]> = [...ERROR_HEADERS, ['x-svc-script-timeout', 'true']];

/** The docs/errors.md answer for a failed `_svc.script` run. */
export function scriptFailureResponse(outcome: Extract<RunOutcome, { ok: false }>): PreparedResponse {
  return outcome.errorType === 'timeout'
    ? errorResponse('script_timeout', outcome.message, { headers: TIMEOUT_HEADERS })
    : errorResponse('script_error', outcome.message, { headers: ERROR_HEADERS, extra: { errorType: outcome.errorType } });
}

/** A `_svc.script` in a predicate or behavior failed: the request ends with this docs/errors.md response. */
export class ScriptFailure extends SvcFailure {
  constructor(readonly response: PreparedResponse) {
    super('script failed');
  }
}

/** A decorate script returned `reset()`: the request ends by resetting the connection. */
export class ResetRequested extends SvcFailure {
  constructor() {
    super('reset requested');
  }
}

/** Runs a script whose failure ends the request (predicate, decorate, wait placements). */
export async function runOrFail(script: CompiledScript, scripts: SvcScripts, call: ScriptCall): Promise<Extract<RunOutcome, { ok: true }>> {
  const outcome = await runScript(script, scripts, call);
  if (!outcome.ok) throw new ScriptFailure(scriptFailureResponse(outcome));
  return outcome;
}

/** Response fields of an `http(...)` result, for behaviors and serving like an `is` response. */
export function httpFields(result: Extract<ScriptResult, { kind: 'http' }>): Record<string, unknown> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of result.headers) {
    const current = headers[name];
    headers[name] = current === undefined ? value : [...(Array.isArray(current) ? current : [current]), value];
  }
  return { statusCode: result.status, headers, body: result.body ?? '' };
}

/** What a response script's result means for serving. */
export type ScriptAnswer = { fields: Record<string, unknown> } | { reset: true } | { pass: true } | { failure: PreparedResponse };

export async function answerOf(outcome: RunOutcome): Promise<ScriptAnswer> {
  if (!outcome.ok) return { failure: scriptFailureResponse(outcome) };
  const result = outcome.result ?? { kind: 'pass' };
  switch (result.kind) {
    case 'http':
      return { fields: httpFields(result) };
    case 'reset':
      return { reset: true };
    case 'delay':
      await sleep(result.ms);
      return { pass: true };
    case 'pass':
      return { pass: true };
  }
}

/** A stub's `{"_svc": {"script": S}}` predicates (keyed by the config's own predicate objects), compiled once per stub. */
export function stubPredicateScripts(stub: Record<string, unknown>, settings: ScriptSettings): Array<{ predicate: object; script: CompiledScript }> {
  const found: Array<{ predicate: object; script: CompiledScript }> = [];
  const visit = (predicate: unknown): void => {
    if (Array.isArray(predicate)) predicate.forEach(visit);
    if (predicate === null || typeof predicate !== 'object' || Array.isArray(predicate)) return;
    const object = predicate as Record<string, unknown>;
    const svc = object._svc;
    if (svc !== null && typeof svc === 'object')
      found.push({ predicate: object, script: compileScript((svc as Record<string, unknown>).script, 'matches', settings, stub) });
    for (const key of ['and', 'or', 'not']) if (object[key] !== undefined) visit(object[key]);
  };
  visit(stub.predicates);
  return found;
}

/** What a decorate script sees as `ctx.response`. */
export function scriptResponse(fields: Record<string, unknown>): ScriptResponseData {
  const headers: Record<string, string | string[]> = {};
  if (fields.headers !== null && typeof fields.headers === 'object') {
    for (const [name, value] of Object.entries(fields.headers)) headers[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  const body = fields.body === undefined || fields.body === null ? '' : typeof fields.body === 'string' ? fields.body : JSON.stringify(fields.body);
  return { status: Number(fields.statusCode) || 200, headers, body };
}

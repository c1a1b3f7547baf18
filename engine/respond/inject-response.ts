/**
 * The `inject` response type (docs/responses.md): the stub's JavaScript function runs in the imposter's
 * sandbox and its result object is served like an `is` response. Failures follow docs/errors.md:
 * an error is a 400 `invalid injection`, the deadline a 504 `injection timeout`; an `inject`
 * predicate fails the same way with its own codes.
 */
import { isObject, plainRequest, errorText } from '../model/index.js';
import { ScriptError, ScriptTimeoutError } from '../script/js/index.js';
import type { CompiledResponse } from './compile-response.js';
import { errorResponse, type PreparedResponse, type ResolveContext, type ResponseOutcome } from './shared/index.js';

const TIMEOUT_HEADERS: Array<[string, string]> = [
  ['Content-Type', 'application/json'],
  ['x-svc-script-timeout', 'true'],
];

export type InjectResult = { fields: Record<string, unknown> } | { failure: ResponseOutcome };

/** Runs the response's function; its fields still go through behaviors and mountebank's post-processing. */
export async function runInject(compiled: CompiledResponse, ctx: ResolveContext, log?: (message: string) => void): Promise<InjectResult> {
  const { port, scripts } = ctx.imposter;
  try {
    const value = await scripts.host().inject(port, String(compiled.config.inject), plainRequest(ctx.request), { timeoutMs: scripts.timeoutMs });
    // mountebank reads statusCode/headers/body/_mode off whatever came back; a non-object has none of them.
    return { fields: isObject(value) ? value : {} };
  } catch (err) {
    const response = scriptFailure(err, 'response');
    if (!response) throw err;
    log?.(`injection X=> ${errorText(err)}`);
    return { failure: { kind: 'http', response } };
  }
}

/** The docs/errors.md answer for a failed inject (`response`) or inject predicate; undefined for errors that are not the script's. */
export function scriptFailure(err: unknown, hook: 'response' | 'predicate'): PreparedResponse | undefined {
  if (err instanceof ScriptTimeoutError) {
    return errorResponse(hook === 'predicate' ? 'predicate_injection_timeout' : 'injection_timeout', err.message, { headers: TIMEOUT_HEADERS });
  }
  if (!(err instanceof ScriptError)) return undefined;
  // The sandbox itself failed (worker lost, host closing): not the script's fault.
  if (err.kind === 'host') return errorResponse('internal_error', err.message);
  if (err.kind === 'too-large' && hook === 'response') return errorResponse('response_too_large', err.message);
  return hook === 'predicate'
    ? errorResponse('invalid_predicate_injection', 'invalid predicate injection', { extra: { data: err.message } })
    : errorResponse('invalid_injection', 'invalid response injection', { extra: { data: err.message } });
}

/**
 * The `inject` response type (SPEC §2.3): the stub's JavaScript function runs in the imposter's
 * sandbox and its result object is served like an `is` response. Failures follow SPEC §7:
 * an error is a 400 `invalid injection`, the deadline a 504 `injection timeout`; an `inject`
 * predicate fails the same way with its own codes.
 */
import { isObject, plainRequest } from '../model/index.js';
import { ScriptError, ScriptTimeoutError } from '../script/js/index.js';
import type { CompiledResponse } from './compile-response.js';
import type { PreparedResponse } from './is-response.js';
import type { ResolveContext, ResponseOutcome } from './outcome.js';

const JSON_TYPE: Array<[string, string]> = [['Content-Type', 'application/json']];
const TIMEOUT_HEADERS: Array<[string, string]> = [['Content-Type', 'application/json'], ['x-svc-script-timeout', 'true']];

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
    log?.(`injection X=> ${(err as Error).message}`);
    return { failure: { kind: 'http', response } };
  }
}

/** The SPEC §7 answer for a failed inject (`response`) or inject predicate; undefined for errors that are not the script's. */
export function scriptFailure(err: unknown, hook: 'response' | 'predicate'): PreparedResponse | undefined {
  const prefix = hook === 'predicate' ? 'predicate injection' : 'injection';
  if (err instanceof ScriptTimeoutError) {
    const entry = { code: `${prefix} timeout`, type: `${prefix.replace(' ', '_')}_timeout`, message: err.message };
    return { statusCode: 504, headers: TIMEOUT_HEADERS, body: Buffer.from(JSON.stringify({ errors: [entry] })) };
  }
  if (err instanceof ScriptError) {
    const entry = hook === 'predicate'
      ? { code: 'invalid predicate injection', type: 'invalid_predicate_injection', message: 'invalid predicate injection', data: err.message }
      : { code: 'invalid injection', type: 'invalid_injection', message: 'invalid response injection', data: err.message };
    return { statusCode: 400, headers: JSON_TYPE, body: Buffer.from(JSON.stringify({ errors: [entry] })) };
  }
  return undefined;
}

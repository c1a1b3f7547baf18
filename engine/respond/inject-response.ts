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

function envelope(statusCode: number, entry: Record<string, unknown>, headers = JSON_TYPE): PreparedResponse {
  return { statusCode, headers, body: Buffer.from(JSON.stringify({ errors: [entry] })) };
}

/** The SPEC §7 answer for a failed inject (`response`) or inject predicate; undefined for errors that are not the script's. */
export function scriptFailure(err: unknown, hook: 'response' | 'predicate'): PreparedResponse | undefined {
  if (err instanceof ScriptTimeoutError) {
    const [code, type] = hook === 'predicate' ? ['predicate injection timeout', 'predicate_injection_timeout'] : ['injection timeout', 'injection_timeout'];
    return envelope(504, { code, type, message: err.message }, TIMEOUT_HEADERS);
  }
  if (!(err instanceof ScriptError)) return undefined;
  // The sandbox itself failed (worker lost, host closing): not the script's fault.
  if (err.kind === 'host') return envelope(500, { code: '500', type: 'internal_error', message: err.message });
  return hook === 'predicate'
    ? envelope(400, { code: 'invalid predicate injection', type: 'invalid_predicate_injection', message: 'invalid predicate injection', data: err.message })
    : envelope(400, { code: 'invalid injection', type: 'invalid_injection', message: 'invalid response injection', data: err.message });
}

import { isObject } from '../model/index.js';
import { prepareResponse, type IsFields, type PreparedResponse } from './is-response.js';

/** What a stub response resolves to, decided once when stubs change. */
export type CompiledResponse =
  | { kind: 'is'; prepared: PreparedResponse }
  | { kind: 'fault'; fault: string }
  | { kind: 'unsupported'; type: string };

/** Response type by SPEC §2.3 precedence: is, proxy, inject, fault, then `_svc.script`. */
export function responseTypeOf(config: Record<string, unknown>): string {
  for (const type of ['is', 'proxy', 'inject', 'fault']) if (config[type] !== undefined) return type;
  return '_svc';
}

export function compileResponse(config: Record<string, unknown>, defaults: IsFields | undefined): CompiledResponse {
  const type = responseTypeOf(config);
  if (type === 'is') return { kind: 'is', prepared: prepareResponse(config.is as IsFields, defaults) };
  if (type === 'fault') return { kind: 'fault', fault: String(config.fault) };
  return { kind: 'unsupported', type };
}

/** The response served when no stub matches (or the imposter is disabled). */
export function compileDefaultResponse(defaults: unknown): PreparedResponse {
  return prepareResponse({}, isObject(defaults) ? (defaults as IsFields) : undefined);
}

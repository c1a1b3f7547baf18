import { prepareResponse, type IsFields, type PreparedResponse, compileScript, type CompiledScript } from './shared/index.js';
import { isObject } from '../model/index.js';
import { compileBehaviors, type CompiledBehaviors } from './behaviors/index.js';
import { compileProxy, type CompiledProxy } from './proxy/index.js';
import type { ScriptSettings } from '../script/svc/index.js';

/**
 * A stub response compiled once when stubs change. `config` is kept for the dynamic steps
 * (proxy, inject, behaviors, faults) which compile their own parts from it.
 */
export interface CompiledResponse {
  config: Record<string, unknown>;
  type: ResponseType;
  /** Present for `is`: the wire-ready response. */
  prepared?: PreparedResponse;
  /** True when serving needs more than writing `prepared` (behaviors, `_svc` blocks): the slow path. */
  dynamic: boolean;
  /** The response's behaviors (docs/behaviors.md), absent when it has none. */
  behaviors?: CompiledBehaviors;
  /** `is` only: its `_svc` block holds nothing but `fault` (and `templated`, which changes nothing served). */
  faultsOnly?: boolean;
  /** Present for `proxy`. */
  proxy?: CompiledProxy;
  /** Present for `_svc.script` when the imposter can run scripts. */
  script?: CompiledScript;
}

export type ResponseType = 'is' | 'proxy' | 'inject' | 'fault' | '_svc';

/** Response type by docs/responses.md precedence: is, proxy, inject, fault, then `_svc.script`. */
export function responseTypeOf(config: Record<string, unknown>): ResponseType {
  for (const type of ['is', 'proxy', 'inject', 'fault'] as const) if (config[type] !== undefined) return type;
  return '_svc';
}

function hasBehaviors(config: Record<string, unknown>): boolean {
  const behaviors = config._behaviors ?? config.behaviors;
  if (Array.isArray(behaviors)) return behaviors.length > 0;
  return isObject(behaviors) && Object.keys(behaviors).some((key) => key !== 'repeat');
}

/** What a response script needs at compile time: the imposter's script settings and the stub it belongs to. */
export interface ScriptCompileContext {
  settings: ScriptSettings;
  stub: Record<string, unknown>;
}

export function compileResponse(config: Record<string, unknown>, defaults: IsFields | undefined, scripts?: ScriptCompileContext): CompiledResponse {
  const type = responseTypeOf(config);
  const dynamic = type !== 'is' || hasBehaviors(config) || isObject(config._svc);
  const behaviors = compileBehaviors(config, scripts);
  if (type === 'is') {
    const svc = config._svc;
    const faultsOnly = isObject(svc) && Object.keys(svc).every((key) => key === 'fault' || key === 'templated');
    return { config, type, prepared: prepareResponse(config.is as IsFields, defaults), dynamic, behaviors, faultsOnly };
  }
  if (type === 'proxy') return { config, type, dynamic, behaviors, proxy: compileProxy(config) };
  if (type === '_svc' && scripts && isObject(config._svc) && config._svc.script !== undefined) {
    return { config, type, dynamic, behaviors, script: compileScript(config._svc.script, 'respond', scripts.settings, scripts.stub) };
  }
  return { config, type, dynamic, behaviors };
}

/** The response served when no stub matches (or the imposter is disabled). */
export function compileDefaultResponse(defaults: unknown): PreparedResponse {
  return prepareResponse({}, isObject(defaults) ? (defaults as IsFields) : undefined);
}

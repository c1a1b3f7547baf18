import { isObject, parseFlowIdSource, stubScripts } from '../model/index.js';
import type { FlowIdSource } from './flow-store.js';

/** Redis connection settings of `_svc.flowState` (docs/flow-state.md). */
export interface RedisSettings {
  url: string;
  poolSize: number;
  keyPrefix: string;
}

/** A `_svc.flowState` validated by the model (flowStateProblems), defaults applied. */
export interface FlowStateSettings {
  backend: 'inmemory' | 'redis';
  ttlSeconds: number;
  flowIdSource: FlowIdSource;
  /** Present exactly when `backend` is `redis`. */
  redis?: RedisSettings;
}

export const DEFAULT_TTL_SECONDS = 300;
const DEFAULT_POOL_SIZE = 10;
const DEFAULT_KEY_PREFIX = 'svc:';
const PORT_SOURCE: FlowIdSource = { kind: 'port' };

/** The imposter's `_svc.flowState` as given, or undefined when absent. */
export function flowStateOf(config: Record<string, unknown>): unknown {
  return isObject(config._svc) ? config._svc.flowState : undefined;
}

/** The settings of a validated explicit `_svc.flowState`; undefined when the imposter has none. */
export function flowStateSettings(config: Record<string, unknown>): FlowStateSettings | undefined {
  const value = flowStateOf(config);
  if (!isObject(value)) return undefined;
  const ttlSeconds = typeof value.ttlSeconds === 'number' ? value.ttlSeconds : DEFAULT_TTL_SECONDS;
  const flowIdSource = parseFlowIdSource(value.flowIdSource) ?? PORT_SOURCE;
  if (value.backend !== 'redis') return { backend: 'inmemory', ttlSeconds, flowIdSource };
  const redis: RedisSettings = {
    url: String(value.url),
    poolSize: typeof value.poolSize === 'number' ? value.poolSize : DEFAULT_POOL_SIZE,
    keyPrefix: typeof value.keyPrefix === 'string' ? value.keyPrefix : DEFAULT_KEY_PREFIX,
  };
  return { backend: 'redis', ttlSeconds, flowIdSource, redis };
}

/** Where the flow id of an imposter's requests comes from: its `flowIdSource`, or the port. */
export function flowIdSourceFor(config: Record<string, unknown>): FlowIdSource {
  const value = flowStateOf(config);
  return isObject(value) ? (parseFlowIdSource(value.flowIdSource) ?? PORT_SOURCE) : PORT_SOURCE;
}

const SCENARIO_FIELDS = ['scenarioName', 'requiredScenarioState', 'newScenarioState', 'required_scenario_state', 'new_scenario_state'];

/** A `_svc.script` response, or one with `_svc.stateOps` (which would do nothing on the noop store). */
function hasStatefulResponse(stub: Record<string, unknown>): boolean {
  const responses = Array.isArray(stub.responses) ? stub.responses : [];
  // Scripts in any placement (predicate, decorate, wait) may use ctx.state too.
  return (
    responses.some((r) => isObject(r) && isObject(r._svc) && (r._svc.script !== undefined || r._svc.stateOps !== undefined)) || stubScripts(stub).length > 0
  );
}

/**
 * docs/flow-state.md rule 2: an imposter without `_svc.flowState` whose stubs use `_svc.script` or a scenario
 * field (or `_svc.stateOps`, which needs somewhere to write) still needs state, so it gets an implicit
 * in-memory store (rule 3: otherwise noop). `config.stubs` are the imposter's stubs (raw configs).
 */
export function needsImplicitFlowStore(config: { stubs?: unknown; _svc?: unknown }): boolean {
  if (isObject(config._svc) && config._svc.flowState !== undefined) return false;
  return stubsNeedFlowStore(Array.isArray(config.stubs) ? config.stubs : []);
}

/** True when any stub has a `_svc.script` or `_svc.stateOps` response or a scenario field (the rule 2 trigger). */
export function stubsNeedFlowStore(stubs: readonly unknown[]): boolean {
  return stubs.some((stub) => isObject(stub) && (hasStatefulResponse(stub) || SCENARIO_FIELDS.some((f) => stub[f] !== undefined)));
}

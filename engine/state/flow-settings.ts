import type { FlowIdSource } from './flow-store.js';

/** Redis connection settings of `_svc.flowState` (SPEC §2.8). */
export interface RedisSettings {
  url: string;
  poolSize: number;
  keyPrefix: string;
}

/** A validated `_svc.flowState`, defaults applied. */
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
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The imposter's `_svc.flowState` as given, or undefined when absent. */
export function flowStateOf(config: Record<string, unknown>): unknown {
  return isRecord(config._svc) ? config._svc.flowState : undefined;
}

function flowIdSourceOf(value: unknown): FlowIdSource | undefined {
  if (value === undefined || value === 'imposter_port') return PORT_SOURCE;
  if (typeof value !== 'string' || !value.startsWith('header:')) return undefined;
  const name = value.slice('header:'.length);
  return HEADER_NAME.test(name) ? { kind: 'header', name } : undefined;
}

function isRedisUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Why an explicit `_svc.flowState` cannot be honoured (SPEC §2.8 rule 1); empty when it can.
 * Connection failures are found later, when the store is opened.
 */
export function flowStateProblems(value: unknown): string[] {
  if (value === undefined) return [];
  if (!isRecord(value)) return ["'_svc.flowState' must be an object"];
  const problems: string[] = [];
  const backend = value.backend ?? 'inmemory';
  if (backend !== 'inmemory' && backend !== 'redis') {
    problems.push(`unknown flow state backend '${String(backend)}': expected 'inmemory' or 'redis'`);
  }
  const ttl = value.ttlSeconds;
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1)) {
    problems.push("'_svc.flowState.ttlSeconds' must be an integer >= 1");
  }
  if (flowIdSourceOf(value.flowIdSource) === undefined) {
    problems.push("'_svc.flowState.flowIdSource' must be 'imposter_port' or 'header:<Name>'");
  }
  if (backend === 'redis') {
    if (!isRedisUrl(value.url)) problems.push("the redis flow state backend needs a 'url' such as redis://127.0.0.1:6379");
    const pool = value.poolSize;
    if (pool !== undefined && (typeof pool !== 'number' || !Number.isInteger(pool) || pool < 1)) {
      problems.push("'_svc.flowState.poolSize' must be an integer >= 1");
    }
    if (value.keyPrefix !== undefined && typeof value.keyPrefix !== 'string') {
      problems.push("'_svc.flowState.keyPrefix' must be a string");
    }
  }
  return problems;
}

/** The settings of a validated explicit `_svc.flowState`; undefined when the imposter has none. */
export function flowStateSettings(config: Record<string, unknown>): FlowStateSettings | undefined {
  const value = flowStateOf(config);
  if (!isRecord(value)) return undefined;
  const ttlSeconds = typeof value.ttlSeconds === 'number' ? value.ttlSeconds : DEFAULT_TTL_SECONDS;
  const flowIdSource = flowIdSourceOf(value.flowIdSource) ?? PORT_SOURCE;
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
  return isRecord(value) ? flowIdSourceOf(value.flowIdSource) ?? PORT_SOURCE : PORT_SOURCE;
}

const SCENARIO_FIELDS = ['scenarioName', 'requiredScenarioState', 'newScenarioState', 'required_scenario_state', 'new_scenario_state'];

/** A `_svc.script` response, or one with `_svc.stateOps` (which would do nothing on the noop store). */
function hasStatefulResponse(stub: Record<string, unknown>): boolean {
  const responses = Array.isArray(stub.responses) ? stub.responses : [];
  return responses.some((r) => isRecord(r) && isRecord(r._svc) && (r._svc.script !== undefined || r._svc.stateOps !== undefined));
}

/**
 * SPEC §2.8 rule 2: an imposter without `_svc.flowState` whose stubs use a `_svc.script` response or a
 * scenario field (or `_svc.stateOps`, which needs somewhere to write) still needs state, so it gets an implicit in-memory store (rule 3: otherwise noop).
 * `config.stubs` are the imposter's stubs (raw configs).
 */
export function needsImplicitFlowStore(config: { stubs?: unknown; _svc?: unknown }): boolean {
  if (isRecord(config._svc) && config._svc.flowState !== undefined) return false;
  return stubsNeedFlowStore(Array.isArray(config.stubs) ? config.stubs : []);
}

/** True when any stub has a `_svc.script` or `_svc.stateOps` response or a scenario field (the rule 2 trigger). */
export function stubsNeedFlowStore(stubs: readonly unknown[]): boolean {
  return stubs.some((stub) => isRecord(stub) && (hasStatefulResponse(stub) || SCENARIO_FIELDS.some((f) => stub[f] !== undefined)));
}

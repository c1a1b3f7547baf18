import { isObject } from './json.js';
import { isIntegerIn, MAX_POOL_SIZE, MAX_TTL_SECONDS } from './limits.js';

/** Where request flow ids come from (engine/state's FlowIdSource, spelled here so the model stays leaf). */
export type FlowIdSourceSpec = { kind: 'port' } | { kind: 'header'; name: string };

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `imposter_port` (or absent) and `header:<Name>`; undefined for anything else. */
export function parseFlowIdSource(value: unknown): FlowIdSourceSpec | undefined {
  if (value === undefined || value === 'imposter_port') return { kind: 'port' };
  if (typeof value !== 'string' || !value.startsWith('header:')) return undefined;
  const name = value.slice('header:'.length);
  return HEADER_NAME.test(name) ? { kind: 'header', name } : undefined;
}

function isRedisUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Why an optional count field is not an integer from 1 to `max`; undefined when it is (or is absent). */
function integerProblem(value: unknown, max: number): string | undefined {
  if (value === undefined || isIntegerIn(value, 1, max)) return undefined;
  return isIntegerIn(value, 1, Infinity) ? `must be at most ${max}` : 'must be an integer >= 1';
}

/**
 * Why an explicit `_svc.flowState` cannot be honoured (docs/flow-state.md rule 1); empty when it can.
 * An unreachable redis server is found later, when the store is opened.
 */
export function flowStateProblems(value: unknown): string[] {
  if (value === undefined) return [];
  if (!isObject(value)) return ["'_svc.flowState' must be an object"];
  const problems: string[] = [];
  const backend = value.backend ?? 'inmemory';
  if (backend !== 'inmemory' && backend !== 'redis') {
    problems.push(`unknown flow state backend '${String(backend)}': expected 'inmemory' or 'redis'`);
  }
  const ttl = integerProblem(value.ttlSeconds, MAX_TTL_SECONDS);
  if (ttl) problems.push(`'_svc.flowState.ttlSeconds' ${ttl}`);
  if (parseFlowIdSource(value.flowIdSource) === undefined) {
    problems.push("'_svc.flowState.flowIdSource' must be 'imposter_port' or 'header:<Name>'");
  }
  if (backend === 'redis') {
    if (!isRedisUrl(value.url)) problems.push("the redis flow state backend needs a 'url' such as redis://127.0.0.1:6379");
    const pool = integerProblem(value.poolSize, MAX_POOL_SIZE);
    if (pool) problems.push(`'_svc.flowState.poolSize' ${pool}`);
    if (value.keyPrefix !== undefined && typeof value.keyPrefix !== 'string') problems.push("'_svc.flowState.keyPrefix' must be a string");
  }
  return problems;
}

export const STATE_OP_NAMES = ['set', 'increment', 'decrement', 'delete', 'clear'] as const;
export type StateOpName = (typeof STATE_OP_NAMES)[number];

function stateOpProblem(op: unknown, at: string): string | undefined {
  if (!isObject(op)) return `${at} must be an object {op, key, ...}`;
  if (!(STATE_OP_NAMES as readonly unknown[]).includes(op.op)) {
    return `${at}: unknown op '${String(op.op)}': expected ${STATE_OP_NAMES.join(', ')}`;
  }
  if (op.op !== 'clear' && (typeof op.key !== 'string' || op.key === '')) return `${at}: op '${String(op.op)}' needs a string 'key'`;
  if (op.op === 'set' && !('value' in op)) return `${at}: op 'set' needs a 'value'`;
  if ((op.op === 'increment' || op.op === 'decrement') && op.by !== undefined && (typeof op.by !== 'number' || !Number.isFinite(op.by))) {
    return `${at}: 'by' must be a number`;
  }
  return undefined;
}

/** Problems with a response's `_svc.stateOps` (docs/responses.md), each naming the bad entry. */
export function stateOpsProblems(response: Record<string, unknown>): string[] {
  const ops = isObject(response._svc) ? response._svc.stateOps : undefined;
  if (ops === undefined) return [];
  if (!Array.isArray(ops)) return ["'_svc.stateOps' must be an array"];
  return ops.map((op, i) => stateOpProblem(op, `'_svc.stateOps[${i}]'`)).filter((p): p is string => p !== undefined);
}

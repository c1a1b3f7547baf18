/**
 * The per-flow key/value store of docs/flow-state.md (`_svc.flowState`), keyed by (flow id, key). Scripts
 * (`ctx.state`), scenarios, spaces and the admin flow-state routes all go through this one interface;
 * `inmemory` and `redis` implement it, and `noop` keeps nothing (docs/flow-state.md rule 3).
 *
 * Every operation is asynchronous because the redis backend is; every failure rejects (a backend
 * outage is never answered with a default). Values are JSON values.
 */
import type { CellReader } from './scenario-cells.js';

export type FlowBackend = 'inmemory' | 'redis' | 'noop';

export type CasResult = { applied: true } | { applied: false; current: unknown };

export interface FlowStore {
  readonly backend: FlowBackend;
  /** The value, or undefined when the key is absent or expired. */
  get(flowId: string, key: string): Promise<unknown>;
  /** Writes and stamps expiry at now + ttlSeconds (rule 4). */
  set(flowId: string, key: string, value: unknown): Promise<void>;
  exists(flowId: string, key: string): Promise<boolean>;
  /** True when the key existed. */
  delete(flowId: string, key: string): Promise<boolean>;
  /** Atomic; an absent key starts from 0; returns the new number; stamps the default TTL. */
  incrBy(flowId: string, key: string, by: number): Promise<number>;
  /** Atomic compare-and-set on JSON equality; an applied write stamps the default TTL. */
  cas(flowId: string, key: string, expected: unknown, next: unknown): Promise<CasResult>;
  /** `ttl(seconds)`: re-stamps every key of the flow; seconds <= 0 expires them all now. */
  expireFlow(flowId: string, seconds: number): Promise<void>;
  /** `ttl(key, seconds)`: true when the key existed; seconds <= 0 deletes it. */
  expireKey(flowId: string, key: string, seconds: number): Promise<boolean>;
  /** Every live key of the flow with its value (empty for an absent flow); expired keys are left out. */
  entries(flowId: string): Promise<Record<string, unknown>>;
  /** Removes every key of the flow; idempotent. */
  clear(flowId: string): Promise<void>;
  /** Flows holding at least one live key (the `svc_active_flows` gauge). */
  activeFlows(): Promise<number>;
  /** Releases connections and timers. */
  close(): Promise<void>;
  /**
   * Per-core, the in-memory store only: scenario states in shared memory that StubGates reads and moves
   * on any thread without the owner (absent: every scenario read and move goes through the methods above).
   */
  readonly scenarioCells?: CellReader;
}

/** Where an imposter's flow id comes from: `imposter_port`, or `header:<Name>` falling back to the port. */
export type FlowIdSource = { kind: 'port' } | { kind: 'header'; name: string };

/**
 * The flow id of a request (docs/flow-state.md `flowIdSource`): the named header's first value when present,
 * otherwise the imposter port. `headers` is keyed by lowercased name.
 */
export function resolveFlowId(source: FlowIdSource, port: number, headers: Record<string, string | string[] | undefined>): string {
  if (source.kind === 'header') {
    const value = headers[source.name.toLowerCase()];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first !== '') return first;
  }
  return String(port);
}

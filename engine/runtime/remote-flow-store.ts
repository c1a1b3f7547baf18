import type { CasResult, FlowStore } from '../state/index.js';

/** The FlowStore operations an engine thread may ask of the store's owner (every one but `close`). */
export const FLOW_CALLS = ['get', 'set', 'exists', 'delete', 'incrBy', 'cas', 'expireFlow', 'expireKey', 'entries', 'clear', 'activeFlows'] as const;
export type FlowCall = (typeof FLOW_CALLS)[number];

/** Runs `op` on the owner's store and settles with its result (rejections carry the owner's message). */
export type FlowCaller = (op: FlowCall, args: unknown[]) => Promise<unknown>;

/**
 * An imposter's in-memory flow store as an engine thread reaches it: the main thread owns the store
 * and every operation is a message to it, so the thread treats it like a remote store (scenario moves
 * are compare-and-set against the state the stub was matched under, StubGates' rule for redis).
 */
export class RemoteFlowStore implements FlowStore {
  readonly backend = 'inmemory' as const;

  constructor(private readonly call: FlowCaller) {}

  get(flowId: string, key: string): Promise<unknown> {
    return this.call('get', [flowId, key]);
  }

  set(flowId: string, key: string, value: unknown): Promise<void> {
    return this.call('set', [flowId, key, value]) as Promise<void>;
  }

  exists(flowId: string, key: string): Promise<boolean> {
    return this.call('exists', [flowId, key]) as Promise<boolean>;
  }

  delete(flowId: string, key: string): Promise<boolean> {
    return this.call('delete', [flowId, key]) as Promise<boolean>;
  }

  incrBy(flowId: string, key: string, by: number): Promise<number> {
    return this.call('incrBy', [flowId, key, by]) as Promise<number>;
  }

  cas(flowId: string, key: string, expected: unknown, next: unknown): Promise<CasResult> {
    return this.call('cas', [flowId, key, expected, next]) as Promise<CasResult>;
  }

  expireFlow(flowId: string, seconds: number): Promise<void> {
    return this.call('expireFlow', [flowId, seconds]) as Promise<void>;
  }

  expireKey(flowId: string, key: string, seconds: number): Promise<boolean> {
    return this.call('expireKey', [flowId, key, seconds]) as Promise<boolean>;
  }

  entries(flowId: string): Promise<Record<string, unknown>> {
    return this.call('entries', [flowId]) as Promise<Record<string, unknown>>;
  }

  clear(flowId: string): Promise<void> {
    return this.call('clear', [flowId]) as Promise<void>;
  }

  activeFlows(): Promise<number> {
    return this.call('activeFlows', []) as Promise<number>;
  }

  /** The owner's store is the owner's to close. */
  async close(): Promise<void> {}
}

/** The owner's side: runs an engine thread's call on `store` (unknown operations are refused). */
export function runFlowCall(store: FlowStore, op: string, args: unknown[]): Promise<unknown> {
  if (!(FLOW_CALLS as readonly string[]).includes(op)) return Promise.reject(new Error(`unknown flow store operation '${op}'`));
  return (store[op as FlowCall] as (...a: unknown[]) => Promise<unknown>).apply(store, args);
}

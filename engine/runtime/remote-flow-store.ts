import {
  flowStateOf,
  flowStateSettings,
  openRemoteFlowStore,
  type CasResult,
  type FlowBackend,
  type FlowStore,
  type FlowStoreMetrics,
  type ScenarioCellView,
} from '../state/index.js';

/** The FlowStore operations an engine thread may ask of the store's owner (every one but `close`). */
export const FLOW_CALLS = ['get', 'set', 'exists', 'delete', 'incrBy', 'cas', 'expireFlow', 'expireKey', 'entries', 'clear', 'activeFlows'] as const;
export type FlowCall = (typeof FLOW_CALLS)[number];

/** Runs `op` on the owner's store and settles with its result (rejections carry the owner's message). */
export type FlowCaller = (op: FlowCall, args: unknown[]) => Promise<unknown>;

/**
 * A flow store an engine thread reaches through `call`: the in-memory store the main thread owns (each
 * operation a message to it), or the thread's own redis connection once it is open. Either way the
 * thread treats it like a remote store: scenario moves are compare-and-set against the state the stub
 * was matched under (StubGates' rule for every store but the owner's synchronous in-memory one). The
 * in-memory store's scenario states the plan shares (`scenarioCells`) are read and moved in shared memory
 * instead, with the same compare-and-set, and no message.
 */
export class RemoteFlowStore implements FlowStore {
  constructor(
    readonly backend: FlowBackend,
    private readonly call: FlowCaller,
    private readonly closing: () => Promise<void> = async () => undefined,
    readonly scenarioCells?: ScenarioCellView,
  ) {}

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

  /** The owner's store is the owner's to close; a thread's own connection is closed here. */
  close(): Promise<void> {
    return this.closing();
  }
}

/** The owner's side: runs an engine thread's call on `store` (unknown operations are refused). */
export function runFlowCall(store: FlowStore, op: string, args: unknown[]): Promise<unknown> {
  if (!(FLOW_CALLS as readonly string[]).includes(op)) return Promise.reject(new Error(`unknown flow store operation '${op}'`));
  return (store[op as FlowCall] as (...a: unknown[]) => Promise<unknown>).apply(store, args);
}

/**
 * An engine thread's own redis flow stores, one per listener, kept across plan versions while the
 * imposter's `_svc.flowState` stays the same (a stub edit does not reconnect). Operations are counted
 * in `metrics`; the active-flows gauge is the main thread's store's to report (it counts Redis, not a
 * connection).
 */
export class ThreadRedisStores {
  private readonly byListener = new Map<number, { key: string; store: FlowStore }>();

  /** `counted`: one operation of listener `id`'s store (svc_flow_state_ops_total, counted on main). */
  constructor(private readonly counted: (id: number, operation: string, result: string) => void) {}

  /** The thread's redis store for listener `id`'s config; undefined (and any old one closed) for another backend. */
  storeFor(id: number, config: Record<string, unknown>): FlowStore | undefined {
    if (flowStateSettings(config)?.backend !== 'redis') {
      this.drop(id);
      return undefined;
    }
    const key = JSON.stringify(flowStateOf(config));
    const known = this.byListener.get(id);
    if (known?.key === key) return known.store;
    this.drop(id);
    const metrics: FlowStoreMetrics = { onFlowStateOp: (operation, result) => this.counted(id, operation, result), onActiveFlows: () => undefined };
    const opening = openRemoteFlowStore(config, metrics);
    // A failed open is every operation's rejection (503 while matching, as on main in an outage).
    opening.catch(() => undefined);
    const store = new RemoteFlowStore(
      'redis',
      (op, args) => opening.then((opened) => runFlowCall(opened!, op, args)),
      () => opening.then((opened) => opened?.close()).catch(() => undefined),
    );
    this.byListener.set(id, { key, store });
    return store;
  }

  drop(id: number): void {
    const known = this.byListener.get(id);
    this.byListener.delete(id);
    void known?.store.close();
  }
}

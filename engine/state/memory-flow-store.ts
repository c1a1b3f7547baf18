import { isDeepStrictEqual } from 'node:util';
import type { CasResult, FlowStore } from './flow-store.js';
import type { FlowStoreMetrics } from './flow-metrics.js';

interface Entry {
  value: unknown;
  /** Epoch ms after which the key is gone. */
  expiresAt: number;
}

export interface MemoryFlowStoreOptions {
  /** Default TTL stamped by every write (docs/flow-state.md rule 4). */
  ttlSeconds: number;
  /** Injectable clock (tests); epoch ms. */
  now?: () => number;
  metrics?: FlowStoreMetrics;
}

/**
 * How often expired keys of untouched flows are dropped, at most (expiry itself is exact on access);
 * it bounds how long `svc_active_flows` may still count a flow that expired while nobody looked.
 */
const MAX_SWEEP_MS = 10_000;

/** Values are kept as JSON copies so a caller mutating what it stored or read changes nothing here. */
function copy(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

const found = (value: unknown): string => (value === undefined ? 'miss' : 'ok');
const existed = (value: boolean): string => (value ? 'ok' : 'miss');

/**
 * The `inmemory` backend: a map of flows, each a map of keys with their own expiry. Operations run
 * synchronously (the promises only satisfy the interface), so scenario matching can use getNow/setNow.
 */
export class MemoryFlowStore implements FlowStore {
  readonly backend = 'inmemory' as const;
  private readonly flows = new Map<string, Map<string, Entry>>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly metrics: FlowStoreMetrics | undefined;
  /** Runs only while some flow holds keys, so an unused store owns no timer. */
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: MemoryFlowStoreOptions) {
    this.ttlMs = options.ttlSeconds * 1000;
    this.now = options.now ?? Date.now;
    this.metrics = options.metrics;
  }

  private count(operation: string, result: string): void {
    this.metrics?.onFlowStateOp(operation, result);
  }

  /** Runs a synchronous operation as a promise that rejects (never throws) and counts it. */
  private op<T>(operation: string, run: () => T, classify: (value: T) => string = () => 'ok'): Promise<T> {
    try {
      const value = run();
      this.count(operation, classify(value));
      return Promise.resolve(value);
    } catch (err) {
      this.count(operation, 'error');
      return Promise.reject(err);
    }
  }

  private dropFlow(flowId: string): void {
    if (!this.flows.delete(flowId)) return;
    this.metrics?.onActiveFlows(this.backend, -1);
    if (this.flows.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** The live entry, dropping it (and an emptied flow) when it has expired. */
  private live(flowId: string, key: string): Entry | undefined {
    const flow = this.flows.get(flowId);
    const entry = flow?.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    flow!.delete(key);
    if (flow!.size === 0) this.dropFlow(flowId);
    return undefined;
  }

  private write(flowId: string, key: string, value: unknown): void {
    let flow = this.flows.get(flowId);
    if (!flow) {
      flow = new Map();
      this.flows.set(flowId, flow);
      this.metrics?.onActiveFlows(this.backend, 1);
      if (!this.sweeper) {
        this.sweeper = setInterval(() => this.sweep(), Math.min(this.ttlMs, MAX_SWEEP_MS));
        this.sweeper.unref();
      }
    }
    flow.set(key, { value, expiresAt: this.now() + this.ttlMs });
  }

  private removeKey(flowId: string, key: string): boolean {
    if (!this.live(flowId, key)) return false;
    const flow = this.flows.get(flowId)!;
    flow.delete(key);
    if (flow.size === 0) this.dropFlow(flowId);
    return true;
  }

  get(flowId: string, key: string): Promise<unknown> {
    return this.op('get', () => this.read(flowId, key), found);
  }

  /** `get` without the promise: the in-memory backend lets request matching read state synchronously. */
  getNow(flowId: string, key: string): unknown {
    const value = this.read(flowId, key);
    this.count('get', found(value));
    return value;
  }

  private read(flowId: string, key: string): unknown {
    const entry = this.live(flowId, key);
    return entry ? copy(entry.value) : undefined;
  }

  set(flowId: string, key: string, value: unknown): Promise<void> {
    return this.op('set', () => this.write(flowId, key, copy(value)));
  }

  /** `set` without the promise, for the same synchronous callers as `getNow`. */
  setNow(flowId: string, key: string, value: unknown): void {
    this.write(flowId, key, copy(value));
    this.count('set', 'ok');
  }

  exists(flowId: string, key: string): Promise<boolean> {
    return this.op('exists', () => this.live(flowId, key) !== undefined, existed);
  }

  delete(flowId: string, key: string): Promise<boolean> {
    return this.op('delete', () => this.removeKey(flowId, key), existed);
  }

  incrBy(flowId: string, key: string, by: number): Promise<number> {
    return this.op('incr', () => {
      if (!Number.isFinite(by)) throw new Error(`cannot increment '${key}' by ${by}`);
      const current = this.live(flowId, key)?.value ?? 0;
      if (typeof current !== 'number') throw new Error(`cannot increment '${key}': its value is not a number`);
      const next = current + by;
      this.write(flowId, key, next);
      return next;
    });
  }

  /** An absent key compares equal to an expected `null` (create-if-absent); `current` is then null. */
  cas(flowId: string, key: string, expected: unknown, next: unknown): Promise<CasResult> {
    return this.op(
      'cas',
      (): CasResult => {
        const current = this.live(flowId, key)?.value ?? null;
        if (!isDeepStrictEqual(current, copy(expected))) return { applied: false, current: copy(current) };
        this.write(flowId, key, copy(next));
        return { applied: true };
      },
      (result) => (result.applied ? 'ok' : 'conflict'),
    );
  }

  expireFlow(flowId: string, seconds: number): Promise<void> {
    return this.op('ttl', () => {
      const flow = this.flows.get(flowId);
      if (!flow) return;
      if (seconds <= 0) {
        this.dropFlow(flowId);
        return;
      }
      const at = this.now() + seconds * 1000;
      for (const key of [...flow.keys()]) {
        const entry = this.live(flowId, key);
        if (entry) entry.expiresAt = at;
      }
    });
  }

  expireKey(flowId: string, key: string, seconds: number): Promise<boolean> {
    return this.op(
      'ttl',
      () => {
        const entry = this.live(flowId, key);
        if (!entry) return false;
        if (seconds <= 0) this.removeKey(flowId, key);
        else entry.expiresAt = this.now() + seconds * 1000;
        return true;
      },
      existed,
    );
  }

  entries(flowId: string): Promise<Record<string, unknown>> {
    return this.op('entries', () => {
      const live: Array<[string, unknown]> = [];
      for (const key of [...(this.flows.get(flowId)?.keys() ?? [])]) {
        const entry = this.live(flowId, key);
        if (entry) live.push([key, copy(entry.value)]);
      }
      // fromEntries defines own properties, so a key named `__proto__` is listed like any other.
      return Object.fromEntries(live);
    });
  }

  clear(flowId: string): Promise<void> {
    return this.op('clear', () => this.dropFlow(flowId));
  }

  async activeFlows(): Promise<number> {
    this.sweep();
    return this.flows.size;
  }

  async close(): Promise<void> {
    for (const flowId of [...this.flows.keys()]) this.dropFlow(flowId);
  }

  private sweep(): void {
    for (const [flowId, flow] of this.flows) {
      for (const key of [...flow.keys()]) this.live(flowId, key);
    }
  }
}

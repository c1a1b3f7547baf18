import { isDeepStrictEqual } from 'node:util';
import type { CasResult, FlowStore } from './flow-store.js';

interface Entry {
  value: unknown;
  /** Epoch ms after which the key is gone. */
  expiresAt: number;
}

export interface MemoryFlowStoreOptions {
  /** Default TTL stamped by every write (SPEC §2.8 rule 4). */
  ttlSeconds: number;
  /** Injectable clock (tests); epoch ms. */
  now?: () => number;
}

/** How often expired keys of untouched flows are dropped, at most (expiry itself is exact on access). */
const MAX_SWEEP_MS = 60_000;

/** Values are kept as JSON copies so a caller mutating what it stored or read changes nothing here. */
function copy(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

/** The `inmemory` backend: a map of flows, each a map of keys with their own expiry. */
export class MemoryFlowStore implements FlowStore {
  readonly backend = 'inmemory' as const;
  private readonly flows = new Map<string, Map<string, Entry>>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: MemoryFlowStoreOptions) {
    this.ttlMs = options.ttlSeconds * 1000;
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.ttlMs, MAX_SWEEP_MS));
    this.sweeper.unref();
  }

  /** The live entry, dropping it (and an emptied flow) when it has expired. */
  private live(flowId: string, key: string): Entry | undefined {
    const flow = this.flows.get(flowId);
    const entry = flow?.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    flow!.delete(key);
    if (flow!.size === 0) this.flows.delete(flowId);
    return undefined;
  }

  private write(flowId: string, key: string, value: unknown): void {
    let flow = this.flows.get(flowId);
    if (!flow) {
      flow = new Map();
      this.flows.set(flowId, flow);
    }
    flow.set(key, { value, expiresAt: this.now() + this.ttlMs });
  }

  async get(flowId: string, key: string): Promise<unknown> {
    return this.getNow(flowId, key);
  }

  /** `get` without the promise: the in-memory backend lets request matching read state synchronously. */
  getNow(flowId: string, key: string): unknown {
    const entry = this.live(flowId, key);
    return entry ? copy(entry.value) : undefined;
  }

  async set(flowId: string, key: string, value: unknown): Promise<void> {
    this.setNow(flowId, key, value);
  }

  /** `set` without the promise, for the same synchronous callers as `getNow`. */
  setNow(flowId: string, key: string, value: unknown): void {
    this.write(flowId, key, copy(value));
  }

  async exists(flowId: string, key: string): Promise<boolean> {
    return this.live(flowId, key) !== undefined;
  }

  async delete(flowId: string, key: string): Promise<boolean> {
    if (!this.live(flowId, key)) return false;
    const flow = this.flows.get(flowId)!;
    flow.delete(key);
    if (flow.size === 0) this.flows.delete(flowId);
    return true;
  }

  async incrBy(flowId: string, key: string, by: number): Promise<number> {
    if (!Number.isFinite(by)) throw new Error(`cannot increment '${key}' by ${by}`);
    const current = this.live(flowId, key)?.value ?? 0;
    if (typeof current !== 'number') throw new Error(`cannot increment '${key}': its value is not a number`);
    const next = current + by;
    this.write(flowId, key, next);
    return next;
  }

  /** An absent key compares equal to an expected `null` (create-if-absent); `current` is then null. */
  async cas(flowId: string, key: string, expected: unknown, next: unknown): Promise<CasResult> {
    const current = this.live(flowId, key)?.value ?? null;
    if (!isDeepStrictEqual(current, copy(expected))) return { applied: false, current: copy(current) };
    this.write(flowId, key, copy(next));
    return { applied: true };
  }

  async expireFlow(flowId: string, seconds: number): Promise<void> {
    const flow = this.flows.get(flowId);
    if (!flow) return;
    if (seconds <= 0) {
      this.flows.delete(flowId);
      return;
    }
    const at = this.now() + seconds * 1000;
    for (const key of [...flow.keys()]) {
      const entry = this.live(flowId, key);
      if (entry) entry.expiresAt = at;
    }
  }

  async expireKey(flowId: string, key: string, seconds: number): Promise<boolean> {
    const entry = this.live(flowId, key);
    if (!entry) return false;
    if (seconds <= 0) await this.delete(flowId, key);
    else entry.expiresAt = this.now() + seconds * 1000;
    return true;
  }

  async clear(flowId: string): Promise<void> {
    this.flows.delete(flowId);
  }

  async activeFlows(): Promise<number> {
    this.sweep();
    return this.flows.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.flows.clear();
  }

  private sweep(): void {
    for (const [flowId, flow] of this.flows) {
      for (const key of [...flow.keys()]) this.live(flowId, key);
    }
  }
}

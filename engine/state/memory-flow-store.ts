import { isDeepStrictEqual } from 'node:util';
import type { CasResult, FlowStore } from './flow-store.js';
import type { FlowStoreMetrics } from './flow-metrics.js';
import { ScenarioCells, type CellEntry, type CellReader, type ScenarioCellsPlan } from './scenario-cells.js';

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
 * Under the per-core runtime, scenario keys engine threads gate on live in shared cells instead
 * (ScenarioCells, made by shareScenarios): every operation here reads and writes those cells, so admin,
 * scripts and the threads see one value.
 */
export class MemoryFlowStore implements FlowStore {
  readonly backend = 'inmemory' as const;
  private readonly flows = new Map<string, Map<string, Entry>>();
  /** Flows counted in svc_active_flows: those holding a live key, in the map or in a cell. */
  private readonly counted = new Set<string>();
  private cells: ScenarioCells | undefined;
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
    if (this.flows.delete(flowId)) this.recount(flowId);
  }

  /** Brings the active-flows gauge (and the sweeper, which runs only while a flow is counted) up to the flow's keys. */
  private recount(flowId: string): void {
    const active = this.flows.has(flowId) || this.liveCell(flowId);
    if (active === this.counted.has(flowId)) return;
    if (active) this.counted.add(flowId);
    else this.counted.delete(flowId);
    this.metrics?.onActiveFlows(this.backend, active ? 1 : -1);
    if (this.counted.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    } else if (this.counted.size > 0 && !this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), Math.min(this.ttlMs, MAX_SWEEP_MS));
      this.sweeper.unref();
    }
  }

  private liveCell(flowId: string): boolean {
    const cells = this.cells;
    if (!cells) return false;
    const now = this.now();
    for (const cell of cells.cellsOf(flowId).values()) if (cells.read(cell, now)) return true;
    return false;
  }

  /** Per-core: the shared scenario cells (undefined until shareScenarios; always under the single runtime). */
  get scenarioCells(): CellReader | undefined {
    return this.cells;
  }

  /** The shared cell holding this key, when it has one. */
  private cellOf(flowId: string, key: string): number | undefined {
    return this.cells?.cellOf(flowId, key);
  }

  /**
   * Per-core: the scenario keys `keys` of the flows `flowIds` move into shared cells (a value already
   * stored moves along) and `states` are interned, so engine threads gate on them without messages.
   * Bounded by MAX_CELLS and MAX_STATES: keys and states past them stay here, reached by message.
   * `announce` is told when a state is interned later (the plan made now does not know it).
   */
  shareScenarios(flowIds: readonly string[], keys: readonly string[], states: Iterable<string>, announce: () => void): ScenarioCellsPlan {
    this.cells ??= new ScenarioCells(this.ttlMs, this.now);
    const cells = this.cells;
    cells.announce = undefined;
    cells.internStates(states);
    for (const flowId of flowIds) {
      for (const key of keys) {
        if (cells.cellOf(flowId, key) !== undefined) continue;
        const cell = cells.intern(flowId, key);
        if (cell === undefined) break;
        const entry = this.live(flowId, key);
        if (!entry) continue;
        cells.write(cell, { value: entry.value, expiresAt: entry.expiresAt });
        this.flows.get(flowId)!.delete(key);
        if (this.flows.get(flowId)!.size === 0) this.flows.delete(flowId);
        this.recount(flowId);
      }
    }
    cells.announce = announce;
    return cells.plan();
  }

  /** Per-core: engine threads' operations on the shared cells, counted, and flows they made active, counted. */
  collectShared(): void {
    const cells = this.cells;
    if (!cells) return;
    for (const [operation, result, times] of cells.collect()) for (let i = 0; i < times; i += 1) this.count(operation, result);
    for (const flowId of [...cells.flows()]) this.recount(flowId);
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
    const cell = this.cellOf(flowId, key);
    if (cell !== undefined) {
      this.cells!.write(cell, { value, expiresAt: this.now() + this.ttlMs });
      this.recount(flowId);
      return;
    }
    let flow = this.flows.get(flowId);
    if (!flow) {
      flow = new Map();
      this.flows.set(flowId, flow);
      this.recount(flowId);
    }
    flow.set(key, { value, expiresAt: this.now() + this.ttlMs });
  }

  /** A key's live entry wherever it is kept (a cell's is a copy: change it through the cell). */
  private entry(flowId: string, key: string): Entry | undefined {
    const cell = this.cellOf(flowId, key);
    return cell === undefined ? this.live(flowId, key) : this.cells!.read(cell, this.now());
  }

  /** A shared cell's value lives until `at` (gone when `seconds` <= 0); false when the cell held none. */
  private expireCell(flowId: string, cell: number, seconds: number, at: number): boolean {
    return this.updateCell<boolean>(flowId, cell, (current) =>
      current ? { next: seconds <= 0 ? undefined : { value: current.value, expiresAt: at }, result: true } : { keep: false },
    );
  }

  /** Replaces a cell's entry atomically against engine threads' moves, then recounts its flow. */
  private updateCell<T>(flowId: string, cell: number, change: (current: CellEntry | undefined) => { next: CellEntry | undefined; result: T } | { keep: T }): T {
    const result = this.cells!.update(cell, this.now(), change);
    this.recount(flowId);
    return result;
  }

  private removeKey(flowId: string, key: string): boolean {
    const cell = this.cellOf(flowId, key);
    if (cell !== undefined) return this.updateCell<boolean>(flowId, cell, (current) => (current ? { next: undefined, result: true } : { keep: false }));
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
    const entry = this.entry(flowId, key);
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
    return this.op('exists', () => this.entry(flowId, key) !== undefined, existed);
  }

  delete(flowId: string, key: string): Promise<boolean> {
    return this.op('delete', () => this.removeKey(flowId, key), existed);
  }

  incrBy(flowId: string, key: string, by: number): Promise<number> {
    return this.op('incr', () => {
      if (!Number.isFinite(by)) throw new Error(`cannot increment '${key}' by ${by}`);
      const increment = (entry: Entry | undefined): number => {
        const current = entry?.value ?? 0;
        if (typeof current !== 'number') throw new Error(`cannot increment '${key}': its value is not a number`);
        return current + by;
      };
      const cell = this.cellOf(flowId, key);
      if (cell !== undefined) {
        const expiresAt = this.now() + this.ttlMs;
        return this.updateCell(flowId, cell, (current) => {
          const next = increment(current);
          return { next: { value: next, expiresAt }, result: next };
        });
      }
      const next = increment(this.live(flowId, key));
      this.write(flowId, key, next);
      return next;
    });
  }

  /** An absent key compares equal to an expected `null` (create-if-absent); `current` is then null. */
  cas(flowId: string, key: string, expected: unknown, next: unknown): Promise<CasResult> {
    return this.op(
      'cas',
      (): CasResult => {
        const cell = this.cellOf(flowId, key);
        if (cell !== undefined) {
          const expiresAt = this.now() + this.ttlMs;
          return this.updateCell(flowId, cell, (entry): { next: CellEntry; result: CasResult } | { keep: CasResult } => {
            const current = entry?.value ?? null;
            if (!isDeepStrictEqual(current, copy(expected))) return { keep: { applied: false, current: copy(current) } };
            return { next: { value: copy(next), expiresAt }, result: { applied: true } };
          });
        }
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
      const at = this.now() + seconds * 1000;
      for (const cell of this.cells?.cellsOf(flowId).values() ?? []) this.expireCell(flowId, cell, seconds, at);
      const flow = this.flows.get(flowId);
      if (!flow) return;
      if (seconds <= 0) {
        this.dropFlow(flowId);
        return;
      }
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
        const cell = this.cellOf(flowId, key);
        if (cell !== undefined) return this.expireCell(flowId, cell, seconds, this.now() + seconds * 1000);
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
      const cells = this.cells;
      const now = this.now();
      for (const [key, cell] of cells?.cellsOf(flowId) ?? []) {
        const entry = cells!.read(cell, now);
        if (entry) live.push([key, copy(entry.value)]);
      }
      // fromEntries defines own properties, so a key named `__proto__` is listed like any other.
      return Object.fromEntries(live);
    });
  }

  clear(flowId: string): Promise<void> {
    return this.op('clear', () => {
      for (const cell of this.cells?.cellsOf(flowId).values() ?? []) this.cells!.write(cell, undefined);
      this.dropFlow(flowId);
      this.recount(flowId);
    });
  }

  async activeFlows(): Promise<number> {
    this.sweep();
    return this.counted.size;
  }

  async close(): Promise<void> {
    this.cells?.reset();
    for (const flowId of [...this.counted]) this.recount(flowId);
    for (const flowId of [...this.flows.keys()]) this.dropFlow(flowId);
  }

  private sweep(): void {
    for (const [flowId, flow] of this.flows) {
      for (const key of [...flow.keys()]) this.live(flowId, key);
    }
    // Cells expire (and engine threads fill them) without this side knowing: their flows are recounted.
    for (const flowId of [...(this.cells?.flows() ?? [])]) this.recount(flowId);
  }
}

/**
 * Scenario states of an in-memory flow store in shared memory (per-core runtime), so an engine thread
 * gates and moves a scenario without asking the main thread, the store's owner: one 64-bit cell per
 * interned (flow, scenario key) holding the state's interned id and the key's expiry together, so a move
 * is one compare-and-set on the whole word (StubGates' rule: it applies only while the cell still holds
 * what the stub was matched under; a re-stamped expiry counts as a change).
 *
 * The owner interns cells and state names and reads and writes the same cells for admin and scripts
 * (MemoryFlowStore). An engine thread knows the cells and states of the plan it was sent; a cell or
 * state interned later, or a value that is not an interned string (DETACHED), sends that thread's
 * request by message as before.
 */

/** Cells per store. Past the cap a scenario key stays in the owner's map and engine threads reach it by message. */
export const MAX_CELLS = 256;
/** Interned state names per store. Past the cap a state is stored DETACHED (engine threads go by message). */
export const MAX_STATES = 1024;

const ABSENT = 0;
/** The value lives in the owner's map of detached values (not a string, or a string past MAX_STATES). */
const DETACHED = 0xffff;
const ID_BITS = 16n;
const ID_MASK = 0xffffn;

/** Shared-memory flow-state op counters, by kind (collected into svc_flow_state_ops_total by the owner). */
export const CellOp = { getOk: 0, getMiss: 1, casOk: 2, casConflict: 3, setOk: 4 } as const;
const OPS: ReadonlyArray<[operation: string, result: string]> = [
  ['get', 'ok'],
  ['get', 'miss'],
  ['cas', 'ok'],
  ['cas', 'conflict'],
  ['set', 'ok'],
];

/** What the owner sends engine threads in a plan (structured-cloned; the buffer is shared). */
export interface ScenarioCellsPlan {
  buffer: SharedArrayBuffer;
  ttlMs: number;
  /** [flowId, store key, cell index]. */
  cells: Array<[string, string, number]>;
  /** State names by id - 1. */
  states: string[];
}

/** A value this side cannot tell (detached, or a state interned after this thread's plan): ask by message. */
export const UNKNOWN: unique symbol = Symbol('unknown scenario value');

/** How StubGates reads and moves cells, on the owner (ScenarioCells) and on an engine thread (ScenarioCellView). */
export interface CellReader {
  /** The clock expiry is stamped and checked against (the owner store's). */
  now(): number;
  cellOf(flowId: string, key: string): number | undefined;
  load(cell: number): bigint;
  /** The stored value `word` of `cell` stands for at `now` (undefined: absent or expired), or UNKNOWN. */
  valueOf(cell: number, word: bigint, now: number): unknown;
  /** The word of `state` stamped with the default TTL from `now`; undefined when this side has no id for it. */
  wordOf(state: string, now: number): bigint | undefined;
  compareAndSet(cell: number, expected: bigint, next: bigint): boolean;
  store(cell: number, next: bigint): void;
  count(op: number): void;
}

const SLOT_BYTES = 8;
const COUNTERS = OPS.length;

const pack = (id: number, expiresAt: number): bigint => (BigInt(Math.max(0, Math.ceil(expiresAt))) << ID_BITS) | BigInt(id);
const idOf = (word: bigint): number => Number(word & ID_MASK);
const expiryOf = (word: bigint): number => Number(word >> ID_BITS);

function live(word: bigint, now: number): boolean {
  return idOf(word) !== ABSENT && expiryOf(word) > now;
}

/** Shared operations of both sides over one buffer. */
abstract class CellWords implements CellReader {
  protected readonly words: BigInt64Array;
  private readonly counters: Int32Array;

  constructor(
    readonly buffer: SharedArrayBuffer,
    protected readonly ttlMs: number,
    readonly now: () => number = Date.now,
  ) {
    this.words = new BigInt64Array(buffer, 0, MAX_CELLS);
    this.counters = new Int32Array(buffer, MAX_CELLS * SLOT_BYTES, COUNTERS);
  }

  abstract cellOf(flowId: string, key: string): number | undefined;
  protected abstract stateName(id: number, cell: number): unknown;
  protected abstract stateId(state: string): number | undefined;

  load(cell: number): bigint {
    return Atomics.load(this.words, cell);
  }

  valueOf(cell: number, word: bigint, now: number): unknown {
    return live(word, now) ? this.stateName(idOf(word), cell) : undefined;
  }

  wordOf(state: string, now: number): bigint | undefined {
    const id = this.stateId(state);
    return id === undefined ? undefined : pack(id, now + this.ttlMs);
  }

  compareAndSet(cell: number, expected: bigint, next: bigint): boolean {
    return Atomics.compareExchange(this.words, cell, expected, next) === expected;
  }

  store(cell: number, next: bigint): void {
    Atomics.store(this.words, cell, next);
  }

  count(op: number): void {
    Atomics.add(this.counters, op, 1);
  }

  /** Counts since the last call, as [operation, result, times] (the owner reports them). */
  protected takeCounts(): Array<[string, string, number]> {
    const taken: Array<[string, string, number]> = [];
    for (let i = 0; i < COUNTERS; i += 1) {
      const times = Atomics.exchange(this.counters, i, 0);
      if (times > 0) taken.push([OPS[i]![0], OPS[i]![1], times]);
    }
    return taken;
  }
}

/** A live cell's value and expiry, as the owner's store reads it. */
export interface CellEntry {
  value: unknown;
  expiresAt: number;
}

/** The owner's side: interns cells and states, and reads and writes values of any JSON kind. */
export class ScenarioCells extends CellWords {
  private readonly byFlow = new Map<string, Map<string, number>>();
  private readonly interned: Array<[string, string, number]> = [];
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly detached = new Map<number, unknown>();
  /**
   * Told when a state is interned after a plan was made (an admin or script write of a new name), so the
   * owner sends engine threads a new plan that knows it; until they take it they go by message.
   */
  announce: (() => void) | undefined;

  constructor(ttlMs: number, now: () => number) {
    super(new SharedArrayBuffer(MAX_CELLS * SLOT_BYTES + COUNTERS * 4), ttlMs, now);
  }

  cellOf(flowId: string, key: string): number | undefined {
    return this.byFlow.get(flowId)?.get(key);
  }

  /** The cells of a flow (empty when none). */
  cellsOf(flowId: string): ReadonlyMap<string, number> {
    return this.byFlow.get(flowId) ?? new Map();
  }

  /** Flows with cells. */
  flows(): IterableIterator<string> {
    return this.byFlow.keys();
  }

  /** A new cell for the key (absent), or undefined past MAX_CELLS. */
  intern(flowId: string, key: string): number | undefined {
    const known = this.cellOf(flowId, key);
    if (known !== undefined || this.interned.length >= MAX_CELLS) return known;
    const cell = this.interned.length;
    let flow = this.byFlow.get(flowId);
    if (!flow) {
      flow = new Map();
      this.byFlow.set(flowId, flow);
    }
    flow.set(key, cell);
    this.interned.push([flowId, key, cell]);
    return cell;
  }

  protected stateName(id: number, cell: number): unknown {
    return id === DETACHED ? this.detached.get(cell) : this.names[id - 1];
  }

  /** Interns the state (undefined past MAX_STATES). */
  protected stateId(state: string): number | undefined {
    const known = this.ids.get(state);
    if (known !== undefined || this.names.length >= MAX_STATES) return known;
    this.names.push(state);
    this.ids.set(state, this.names.length);
    this.announce?.();
    return this.names.length;
  }

  internStates(states: Iterable<string>): void {
    for (const state of states) this.stateId(state);
  }

  /** The cell's live value and expiry at `now`, or undefined. */
  read(cell: number, now: number): CellEntry | undefined {
    return this.readWord(cell, this.load(cell), now);
  }

  /** The word holding `entry` in `cell` (a value that is not an interned string is kept aside, DETACHED). */
  private wordFor(cell: number, entry: CellEntry | undefined): bigint {
    if (!entry) return BigInt(ABSENT);
    const id = typeof entry.value === 'string' ? this.stateId(entry.value) : undefined;
    if (id !== undefined) return pack(id, entry.expiresAt);
    this.detached.set(cell, entry.value);
    return pack(DETACHED, entry.expiresAt);
  }

  /** Writes unconditionally (a set racing an engine thread's move is ordered either way). */
  write(cell: number, entry: CellEntry | undefined): void {
    this.store(cell, this.wordFor(cell, entry));
  }

  /**
   * Replaces the cell's entry by `change(current)` atomically against engine threads' moves (retried when
   * one moved it meanwhile); `change` returning `current` itself leaves the cell as it is.
   */
  update<T>(cell: number, now: number, change: (current: CellEntry | undefined) => { next: CellEntry | undefined; result: T } | { keep: T }): T {
    for (;;) {
      const word = this.load(cell);
      const current = this.readWord(cell, word, now);
      const decided = change(current);
      if ('keep' in decided) return decided.keep;
      if (this.compareAndSet(cell, word, this.wordFor(cell, decided.next))) return decided.result;
    }
  }

  private readWord(cell: number, word: bigint, now: number): CellEntry | undefined {
    return live(word, now) ? { value: this.stateName(idOf(word), cell), expiresAt: expiryOf(word) } : undefined;
  }

  /** Empties every cell (the store closed). */
  reset(): void {
    for (const [, , cell] of this.interned) this.store(cell, BigInt(ABSENT));
    this.detached.clear();
  }

  /** Engine threads' counted operations since the last call. */
  collect(): Array<[string, string, number]> {
    return this.takeCounts();
  }

  plan(): ScenarioCellsPlan {
    return { buffer: this.buffer, ttlMs: this.ttlMs, cells: [...this.interned], states: [...this.names] };
  }
}

/** An engine thread's side, from its plan: only the cells and states interned when the plan was made. */
export class ScenarioCellView extends CellWords {
  private readonly byFlow = new Map<string, Map<string, number>>();
  private readonly names: string[];
  private readonly ids: Map<string, number>;

  constructor(plan: ScenarioCellsPlan) {
    super(plan.buffer, plan.ttlMs);
    for (const [flowId, key, cell] of plan.cells) {
      let flow = this.byFlow.get(flowId);
      if (!flow) {
        flow = new Map();
        this.byFlow.set(flowId, flow);
      }
      flow.set(key, cell);
    }
    this.names = plan.states;
    this.ids = new Map(plan.states.map((name, i) => [name, i + 1]));
  }

  cellOf(flowId: string, key: string): number | undefined {
    return this.byFlow.get(flowId)?.get(key);
  }

  protected stateName(id: number): unknown {
    return id === DETACHED || id > this.names.length ? UNKNOWN : this.names[id - 1];
  }

  protected stateId(state: string): number | undefined {
    return this.ids.get(state);
  }
}

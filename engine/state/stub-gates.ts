/**
 * Matching rule 5 (docs/imposters.md) compiled per stub set: which stubs belong to a space, which need a
 * scenario state, and which move a scenario when they serve. Built when stubs change; an imposter
 * whose stubs carry none of these fields has no gates and pays nothing per request.
 */
import { hasFlowGate, newStateOf, requiredStateOf, scenarioNameOf, spaceOf, SvcFailure, errorText } from '../model/index.js';
import type { Eligibility, MatchContext } from '../match/index.js';
import type { FlowStore } from './flow-store.js';
import type { MemoryFlowStore } from './memory-flow-store.js';
import { readScenarioStateNow, scenarioKey, scenarioStateOf, syncStore } from './scenarios.js';
import { CellOp, UNKNOWN, type CellReader } from './scenario-cells.js';

/**
 * Matching reached a stub gated on a scenario state the flow store could not give: the request
 * fails (503, docs/errors.md), while requests that match before any such stub never notice the outage.
 */
export class FlowStoreUnavailable extends SvcFailure {
  constructor(readonly cause: unknown) {
    super(errorText(cause));
  }
}

interface Gate {
  readonly space: string | undefined;
  readonly scenario: string | undefined;
  readonly required: string | undefined;
  readonly next: string | undefined;
}

/** One request's view of the gates: the match context that skips ineligible stubs, and the transition. */
export interface GatedRequest {
  readonly flowId: string;
  readonly context: MatchContext;
  /**
   * Moves the served stub's scenario: synchronously on the in-memory backend; otherwise a Promise of
   * false when the state the stub was matched under changed meanwhile (nothing moved: match again).
   */
  served(stubIndex: number): void | Promise<boolean>;
}

export class StubGates {
  private constructor(
    private readonly gates: ReadonlyArray<Gate | undefined>,
    /** Scenarios some stub requires a state of: what a request must know before matching. */
    private readonly required: readonly string[],
  ) {
    this.requiredKeys = required.map(scenarioKey);
  }

  private readonly requiredKeys: readonly string[];

  /** undefined when no stub has a gate field. */
  static compile(configs: ReadonlyArray<Record<string, unknown>>): StubGates | undefined {
    if (!configs.some(hasFlowGate)) return undefined;
    const required = new Set<string>();
    const gates = configs.map((config): Gate | undefined => {
      if (!hasFlowGate(config)) return undefined;
      const gate = { space: spaceOf(config), scenario: scenarioNameOf(config), required: requiredStateOf(config), next: newStateOf(config) };
      if (gate.scenario !== undefined && gate.required !== undefined) required.add(gate.scenario);
      return gate;
    });
    return new StubGates(gates, [...required]);
  }

  /**
   * The gated context for a request of `flowId`. With the in-memory store, states are read while
   * matching and written when the stub is chosen, all synchronously, so pipelined requests of one
   * flow see each other's transitions in order. Other backends read the needed states first, and a
   * move from a required state is a compare-and-set against the value read (atomic across processes).
   * When that read fails, matching still runs: only a stub that needs those states fails it.
   */
  forRequest(base: MatchContext, flowId: string, store: FlowStore): GatedRequest | Promise<GatedRequest> {
    const cells = store.scenarioCells;
    if (cells !== undefined) {
      const read = this.readCells(cells, flowId);
      if (read) return new GatedMatch(this.gates, base, flowId, store, undefined, read.stored, read);
    }
    const memory = syncStore(store);
    if (memory !== undefined || this.required.length === 0) return new GatedMatch(this.gates, base, flowId, store, memory, undefined);
    return Promise.all(this.required.map((name) => store.get(flowId, scenarioKey(name)))).then(
      (values) => new GatedMatch(this.gates, base, flowId, store, undefined, new Map(this.required.map((name, i) => [name, values[i]]))),
      (err: unknown) => new GatedMatch(this.gates, base, flowId, store, undefined, new FlowStoreUnavailable(err)),
    );
  }

  /**
   * Per-core, the in-memory store: the required states read from shared cells, as the other backends read
   * them from the store, with the words read (the moves' compare-and-set is against them). Undefined when a
   * required scenario of this flow has no cell, or holds a value this side cannot tell: then the store's
   * methods answer (the owner's, by message on an engine thread).
   */
  private readCells(cells: CellReader, flowId: string): CellRead | undefined {
    const now = cells.now();
    const stored = new Map<string, unknown>();
    const words = new Map<string, bigint>();
    let misses = 0;
    for (let i = 0; i < this.required.length; i += 1) {
      const cell = cells.cellOf(flowId, this.requiredKeys[i]!);
      if (cell === undefined) return undefined;
      const word = cells.load(cell);
      const value = cells.valueOf(cell, word, now);
      if (value === UNKNOWN) return undefined;
      if (value === undefined) misses += 1;
      stored.set(this.required[i]!, value);
      words.set(this.required[i]!, word);
    }
    for (let i = 0; i < misses; i += 1) cells.count(CellOp.getMiss);
    for (let i = misses; i < this.required.length; i += 1) cells.count(CellOp.getOk);
    return { cells, stored, words };
  }
}

/** Required states read from shared cells: their values (as a store holds them) and the words they were read from. */
interface CellRead {
  readonly cells: CellReader;
  readonly stored: ReadonlyMap<string, unknown>;
  readonly words: ReadonlyMap<string, bigint>;
}

/** Every hook of MatchContext but `isEligible`, each required to be present, so a new hook is not dropped silently. */
type BaseHooks = { [K in Exclude<keyof MatchContext, 'isEligible'>]-?: MatchContext[K] };

/**
 * One request's gates; it is its own match context (`isEligible` is a method, so a request costs
 * one object and no closures), carrying the base context's hooks along.
 */
class GatedMatch implements GatedRequest, MatchContext, BaseHooks {
  readonly injectPredicate: MatchContext['injectPredicate'];
  readonly scriptPredicate: MatchContext['scriptPredicate'];

  constructor(
    private readonly gates: ReadonlyArray<Gate | undefined>,
    base: MatchContext,
    readonly flowId: string,
    private readonly store: FlowStore,
    /** The in-memory backend, read and written synchronously. */
    private readonly memory: MemoryFlowStore | undefined,
    /** Otherwise the stored values of the required scenarios, read before matching (or why they could not be). */
    private readonly stored: ReadonlyMap<string, unknown> | FlowStoreUnavailable | undefined,
    /** When they were read from shared cells: moves there are compare-and-set on the cell itself. */
    private readonly cellRead?: CellRead,
  ) {
    this.injectPredicate = base.injectPredicate;
    this.scriptPredicate = base.scriptPredicate;
  }

  get context(): MatchContext {
    return this;
  }

  private stateOf(scenario: string): string {
    if (this.memory) return readScenarioStateNow(this.memory, this.flowId, scenario);
    if (this.stored instanceof FlowStoreUnavailable) throw this.stored;
    return scenarioStateOf(this.stored?.get(scenario));
  }

  isEligible(stubIndex: number): Eligibility {
    const gate = this.gates[stubIndex];
    if (gate === undefined) return 'ok';
    if (gate.space !== undefined && gate.space !== this.flowId) return 'skippedSpace';
    if (gate.required !== undefined && gate.scenario !== undefined && this.stateOf(gate.scenario) !== gate.required) return 'skippedScenarioState';
    return 'ok';
  }

  served(stubIndex: number): void | Promise<boolean> {
    const gate = this.gates[stubIndex];
    if (gate?.next === undefined || gate.scenario === undefined) return undefined;
    const key = scenarioKey(gate.scenario);
    if (this.memory) {
      this.memory.setNow(this.flowId, key, gate.next);
      return undefined;
    }
    const inCell = this.cellRead && this.moveInCell(this.cellRead, gate, key);
    if (inCell !== undefined) return inCell ? undefined : Promise.resolve(false);
    if (gate.required === undefined) return this.store.set(this.flowId, key, gate.next).then(() => true);
    // An absent key compares equal to null in every backend's cas.
    // Only a stub found eligible gets here, so the states were read.
    const stored = this.stored as ReadonlyMap<string, unknown> | undefined;
    return this.store.cas(this.flowId, key, stored?.get(gate.scenario) ?? null, gate.next).then((result) => result.applied);
  }

  /**
   * The move made on the scenario's shared cell: whether it applied, or undefined when the scenario has no
   * cell or this side no id for the new state (the store's methods make it then). A required state's move
   * applies only if the cell still holds the word it was read as; otherwise the request is matched again.
   */
  private moveInCell(read: CellRead, gate: Gate, key: string): boolean | undefined {
    const { cells } = read;
    const cell = cells.cellOf(this.flowId, key);
    const next = cell === undefined ? undefined : cells.wordOf(gate.next!, cells.now());
    if (next === undefined) return undefined;
    if (gate.required === undefined) {
      cells.store(cell!, next);
      cells.count(CellOp.setOk);
      return true;
    }
    const applied = cells.compareAndSet(cell!, read.words.get(gate.scenario!)!, next);
    cells.count(applied ? CellOp.casOk : CellOp.casConflict);
    return applied;
  }
}

import { canonicalJson, requiredStateOf } from '../model/index.js';
import { covers, factsOf, type PredicateFacts } from './predicate-facts.js';
import { AnchorIndex } from './anchor-index.js';

export type WarningType = 'duplicate_id' | 'exact_duplicate' | 'potentially_shadowed' | 'catch_all' | 'catch_all_not_last' | 'truncated' | 'config_key_ignored';

/** docs/metrics-and-events.md (and §9.6 `config_key_ignored`, which carries `path`); `truncated` carries only `warningType` and `message`. */
export interface StubWarning {
  warningType: WarningType;
  message: string;
  /** `config_key_ignored`: the JSON path of the ignored key. */
  path?: string;
  stubIndex?: number;
  stubId?: string;
  shadowedByIndex?: number;
}

/** docs/limits.md: warnings kept per imposter before one `truncated` summary. */
export const MAX_WARNINGS = 100;

/** What the analysis needs of one stub; it depends on the stub config alone, so it is computed once per config. */
interface AnalysedStub {
  id: string | undefined;
  facts: PredicateFacts;
  catchAll: boolean;
  space: unknown;
  scenarioName: unknown;
  requiredState: unknown;
  /** Hash key of "identical predicates" (`duplicateKey`). */
  key: string;
}

/** Stub configs are not changed in place (a proxy recording adds responses, which the analysis does not read). */
const analysedCache = new WeakMap<object, AnalysedStub>();

function analysed(config: Record<string, unknown>): AnalysedStub {
  const cached = analysedCache.get(config);
  if (cached) return cached;
  const predicates = config.predicates;
  const stub = {
    id: typeof config.id === 'string' ? config.id : undefined,
    facts: factsOf(predicates),
    catchAll: predicates === undefined || predicates === null || (Array.isArray(predicates) && predicates.length === 0),
    space: config.space,
    scenarioName: config.scenarioName,
    requiredState: requiredStateOf(config),
    key: duplicateKey(config),
  };
  analysedCache.set(config, stub);
  return stub;
}

/**
 * True when the earlier stub is eligible for every request the later one is: a stub scoped to a space
 * or needing a scenario state answers only that flow or state, so it overrides a later stub there (the
 * point of spaces) without making it unreachable.
 */
function eligibleWhenever(earlier: AnalysedStub, later: AnalysedStub): boolean {
  if (earlier.space !== undefined && earlier.space !== later.space) return false;
  return earlier.requiredState === undefined || (earlier.scenarioName === later.scenarioName && earlier.requiredState === later.requiredState);
}

/** Hash key of "identical predicates": the predicate list as a set, plus what decides eligibility. */
function duplicateKey(config: Record<string, unknown>): string {
  const list = config.predicates ?? [];
  const predicates = Array.isArray(list) ? list.map(canonicalJson).sort() : canonicalJson(list);
  return canonicalJson({ predicates, space: config.space, scenarioName: config.scenarioName, state: requiredStateOf(config) });
}

/**
 * The warnings of docs/metrics-and-events.md for a stub list that changes over time. A stub's warnings depend only on
 * the stubs before it (plus, for a catch-all, how many follow), so a list that only grew at the end
 * (POST .../stubs without `index`, proxy recording) is analysed for the new stubs alone; any other
 * change starts over, from per-config facts computed once.
 *
 * Shadowing rule: an earlier stub E potentially shadows a later stub S when E is not a catch-all (those
 * are reported as `catch_all_not_last` instead), E is eligible whenever S is (see `eligibleWhenever`),
 * and every predicate of E is implied by S's predicates — an identical predicate, or for
 * equals/startsWith/endsWith/contains on the same field a constraint of S that is at least as strict
 * (S `equals path /a/b` implies E `startsWith path /a`). Then any request S matches, E matches too, and
 * E comes first. "Potentially": inject predicates can still let a request through to S. Candidates are
 * found through an anchor of E (engine/analysis/anchor-index.ts), so a typical routing table costs O(n).
 */
/** The earlier stubs a stub's warnings name; a catch-all is flagged with none. */
interface Flags {
  duplicateId?: number;
  duplicate?: number;
  shadow?: number;
}

/** Whether an earlier stub gives the later one a warning: the same id or key, or it covers it. */
function mayFlag(earlier: AnalysedStub, later: AnalysedStub): boolean {
  if (later.id !== undefined && earlier.id === later.id) return true;
  if (earlier.key === later.key) return true;
  return !earlier.catchAll && eligibleWhenever(earlier, later) && covers(earlier.facts, later.facts);
}

/** Whether stubs inserted at `at` may name themselves in these flags: some kind is unset or names a stub after `at`. */
function mayPrecede(flags: Flags, at: number): boolean {
  const later = (ref: number | undefined) => ref === undefined || ref > at;
  return later(flags.duplicateId) || later(flags.duplicate) || (flags.duplicate === undefined && later(flags.shadow));
}

/** What a caller vouches for a new list: its first `kept` and last `tailKept` configs are the last update's, as they were. */
export interface StubListEdit {
  kept: number;
  tailKept: number;
}

/** Inserted stubs compared with every later one (one by one) before a splice starts over instead. */
const MAX_SPLICED = 16;

export class StubAnalysis {
  private configs: ReadonlyArray<Record<string, unknown>> = [];
  private stubs: AnalysedStub[] = [];
  private index = new AnchorIndex();
  /** First stub of each id and of each duplicate key. */
  private idAt = new Map<string, number>();
  private firstWithKey = new Map<string, number>();
  /** How many stubs have each id and each duplicate key (a removed first one is looked for again only when others remain). */
  private idCounts = new Map<string, number>();
  private keyCounts = new Map<string, number>();
  /** Per stub: defined for a flagged stub (a warning of its own or a catch-all), naming the earlier stubs its warnings name. */
  private flags: Array<Flags | undefined> = [];

  /**
   * The warnings for `configs`, in stub order, at most MAX_WARNINGS plus a `truncated` summary. The
   * caller may vouch that the first `unchanged` configs are those of the last update (no comparing them),
   * or, for an edit inside the list, which leading and trailing configs it kept: then only the stubs
   * the edit brings are analysed, and the later stubs are compared with them alone.
   */
  update(configs: ReadonlyArray<Record<string, unknown>>, unchanged: number | StubListEdit = 0): StubWarning[] {
    const edit = typeof unchanged === 'number' ? { kept: unchanged, tailKept: 0 } : unchanged;
    const before = this.configs.length;
    const vouched = edit.kept + edit.tailKept <= Math.min(before, configs.length) && (edit.kept > 0 || edit.tailKept > 0);
    if (vouched && edit.tailKept === 0 && edit.kept === before) {
      for (let i = before; i < configs.length; i++) this.add(analysed(configs[i]!), i);
    } else if (vouched && edit.tailKept > 0 && configs.length - edit.kept - edit.tailKept <= MAX_SPLICED) {
      this.splice(configs, edit.kept, before - edit.kept - edit.tailKept);
    } else {
      if (!this.grewFrom(configs)) this.reset();
      for (let i = this.stubs.length; i < configs.length; i++) this.add(analysed(configs[i]!), i);
    }
    this.configs = configs;
    return this.warnings();
  }

  private grewFrom(configs: ReadonlyArray<Record<string, unknown>>): boolean {
    const before = this.configs;
    if (configs.length < before.length) return false;
    for (let i = 0; i < before.length; i++) if (configs[i] !== before[i]) return false;
    return true;
  }

  private reset(): void {
    this.stubs = [];
    this.index = new AnchorIndex();
    this.idAt = new Map();
    this.firstWithKey = new Map();
    this.idCounts = new Map();
    this.keyCounts = new Map();
    this.flags = [];
  }

  private add(stub: AnalysedStub, i: number): void {
    this.stubs.push(stub);
    if (stub.id !== undefined) {
      if (!this.idAt.has(stub.id)) this.idAt.set(stub.id, i);
      this.idCounts.set(stub.id, (this.idCounts.get(stub.id) ?? 0) + 1);
    }
    if (!this.firstWithKey.has(stub.key)) this.firstWithKey.set(stub.key, i);
    this.keyCounts.set(stub.key, (this.keyCounts.get(stub.key) ?? 0) + 1);
    this.flags.push(this.flagsOf(stub, i));
    if (!stub.catchAll) this.index.add(i, stub.facts);
  }

  /** The flags of the stub at `i`, from the first-of maps and the index (which may hold later stubs too). */
  private flagsOf(stub: AnalysedStub, i: number): Flags | undefined {
    const firstId = stub.id === undefined ? undefined : this.idAt.get(stub.id);
    const duplicateId = firstId !== undefined && firstId < i ? firstId : undefined;
    const firstKey = this.firstWithKey.get(stub.key);
    const duplicate = firstKey !== undefined && firstKey < i ? firstKey : undefined;
    let shadow: number | undefined;
    if (duplicate === undefined) {
      for (const at of this.index.candidates(stub.facts)) {
        if (at >= i) break;
        const earlier = this.stubs[at]!;
        if (eligibleWhenever(earlier, stub) && covers(earlier.facts, stub.facts)) {
          shadow = at;
          break;
        }
      }
    }
    if (duplicateId === undefined && duplicate === undefined && shadow === undefined && !stub.catchAll) return undefined;
    return { duplicateId, duplicate, shadow };
  }

  /**
   * The stubs `[at, at + removed)` replaced by `configs[at, at + inserted)`. A later stub's flags can
   * only change where they named a removed stub (recomputed) or where an inserted stub now comes first
   * (compared with each inserted stub); the others only shift.
   */
  private splice(configs: ReadonlyArray<Record<string, unknown>>, at: number, removed: number): void {
    const end = at + removed;
    const inserted = configs.slice(at, configs.length - (this.stubs.length - end)).map((config) => analysed(config));
    const delta = inserted.length - removed;
    const gone = this.stubs.slice(at, end);
    this.stubs.splice(at, removed, ...inserted);
    this.flags.splice(at, removed, ...inserted.map(() => undefined));
    const indexed = (stub: AnalysedStub) => (stub.catchAll ? undefined : stub.facts);
    this.index.splice(at, gone.map(indexed), inserted.map(indexed));
    this.respliceFirsts(this.idAt, this.idCounts, gone, at, end, delta, (stub) => stub.id);
    this.respliceFirsts(this.firstWithKey, this.keyCounts, gone, at, end, delta, (stub) => stub.key);
    for (let i = 0; i < inserted.length; i++) this.flags[at + i] = this.flagsOf(inserted[i]!, at + i);
    const after = at + inserted.length;
    const shift = (ref: number | undefined): number | undefined => (ref === undefined || ref < end ? ref : ref + delta);
    const named = (ref: number | undefined): boolean => ref !== undefined && ref >= at && ref < end;
    for (let i = after; i < this.stubs.length; i++) {
      const old = this.flags[i];
      if (old !== undefined && (named(old.duplicateId) || named(old.duplicate) || named(old.shadow))) {
        this.flags[i] = this.flagsOf(this.stubs[i]!, i);
        continue;
      }
      const flags =
        old === undefined || delta === 0 ? old : { duplicateId: shift(old.duplicateId), duplicate: shift(old.duplicate), shadow: shift(old.shadow) };
      this.flags[i] =
        inserted.length === 0 || (flags !== undefined && !mayPrecede(flags, at)) ? flags : this.comparedWithInserted(this.stubs[i]!, flags, at, inserted);
    }
  }

  /** `flags` of a later stub once the stubs `inserted` (from `at`) come before it. */
  private comparedWithInserted(stub: AnalysedStub, flags: Flags | undefined, at: number, inserted: AnalysedStub[]): Flags | undefined {
    if (flags === undefined && !inserted.some((earlier) => mayFlag(earlier, stub))) return undefined;
    let { duplicateId, duplicate, shadow } = flags ?? {};
    for (let n = 0; n < inserted.length; n++) {
      const earlier = inserted[n]!;
      if (stub.id !== undefined && earlier.id === stub.id && (duplicateId === undefined || duplicateId > at + n)) duplicateId = at + n;
      if (earlier.key === stub.key && (duplicate === undefined || duplicate > at + n)) {
        duplicate = at + n;
        shadow = undefined;
      }
      if (duplicate === undefined && !earlier.catchAll && (shadow === undefined || shadow > at + n)) {
        if (eligibleWhenever(earlier, stub) && covers(earlier.facts, stub.facts)) shadow = at + n;
      }
    }
    if (duplicateId === undefined && duplicate === undefined && shadow === undefined && !stub.catchAll) return undefined;
    return { duplicateId, duplicate, shadow };
  }

  /**
   * A first-of map after a splice: later entries shift; an entry for a removed stub, or one an inserted
   * stub now precedes, is looked for again from `at` (a scan only for keys the edit touched).
   */
  private respliceFirsts(
    map: Map<string, number>,
    counts: Map<string, number>,
    gone: readonly AnalysedStub[],
    at: number,
    end: number,
    delta: number,
    keyOf: (stub: AnalysedStub) => string | undefined,
  ): void {
    const stale: string[] = [];
    for (const stub of gone) {
      const key = keyOf(stub);
      if (key === undefined) continue;
      const left = counts.get(key)! - 1;
      if (left === 0) counts.delete(key);
      else counts.set(key, left);
      const first = map.get(key)!;
      if (first >= at && first < end && !stale.includes(key)) stale.push(key);
    }
    for (let i = at; i < end + delta; i++) {
      const key = keyOf(this.stubs[i]!);
      if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    if (delta !== 0) {
      for (const [key, first] of map) if (first >= end) map.set(key, first + delta);
    }
    for (const key of stale) {
      map.delete(key);
      // Stubs left with the key: look for the first (a scan only for a key another stub shares).
      if (!counts.has(key)) continue;
      for (let i = at; i < this.stubs.length; i++) {
        if (keyOf(this.stubs[i]!) === key) {
          map.set(key, i);
          break;
        }
      }
    }
    for (let i = at; i < end + delta; i++) {
      const key = keyOf(this.stubs[i]!);
      if (key === undefined) continue;
      const first = map.get(key);
      if (first === undefined || first > i) map.set(key, i);
    }
  }

  private warnings(): StubWarning[] {
    const warnings: StubWarning[] = [];
    let suppressed = 0;
    const push = (make: () => StubWarning): void => {
      if (warnings.length < MAX_WARNINGS) warnings.push(make());
      else suppressed += 1;
    };
    const count = this.stubs.length;
    const all = this.flags;
    for (let i = 0; i < all.length; i++) {
      const flags = all[i];
      if (flags === undefined) continue;
      const { duplicateId, duplicate, shadow } = flags;
      const stub = this.stubs[i]!;
      if (duplicateId !== undefined) {
        push(() => ({
          warningType: 'duplicate_id',
          message: `stub ${i} has id '${stub.id}', already used by stub ${duplicateId}`,
          stubIndex: i,
          stubId: stub.id,
        }));
      }
      if (duplicate !== undefined) {
        push(() => ({
          warningType: 'exact_duplicate',
          stubIndex: i,
          shadowedByIndex: duplicate,
          message: `stub ${i} has the same predicates as stub ${duplicate} and will never match`,
        }));
      }
      if (shadow !== undefined) {
        push(() => ({
          warningType: 'potentially_shadowed',
          stubIndex: i,
          shadowedByIndex: shadow,
          message: `stub ${i} may never match: stub ${shadow} comes first and matches every request it matches`,
        }));
      }
      if (stub.catchAll) {
        push(() => ({ warningType: 'catch_all', stubIndex: i, message: `stub ${i} has no predicates and matches every request` }));
        const after = count - i - 1;
        if (after > 0 && stub.space === undefined && stub.requiredState === undefined) {
          push(() => ({
            warningType: 'catch_all_not_last',
            stubIndex: i,
            message: `stub ${i} matches every request and comes before ${after} other stub${after === 1 ? '' : 's'}`,
          }));
        }
      }
    }
    if (suppressed === 0) return warnings;
    return [...warnings, { warningType: 'truncated', message: `${suppressed} more warning${suppressed === 1 ? '' : 's'} suppressed` }];
  }
}

/** Warnings of docs/metrics-and-events.md for a stub list, in stub order, at most MAX_WARNINGS plus a `truncated` summary. */
export function analyzeStubs(configs: ReadonlyArray<Record<string, unknown>>): StubWarning[] {
  return new StubAnalysis().update(configs);
}

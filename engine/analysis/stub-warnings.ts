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
export class StubAnalysis {
  private configs: ReadonlyArray<Record<string, unknown>> = [];
  private stubs: AnalysedStub[] = [];
  private index = new AnchorIndex();
  private idAt = new Map<string, number>();
  private firstWithKey = new Map<string, number>();
  /** Per flagged stub (a warning of its own or a catch-all), ascending: the earlier stubs its warnings name. */
  private flagged: Array<{ index: number; duplicateId?: number; duplicate?: number; shadow?: number }> = [];

  /**
   * The warnings for `configs`, in stub order, at most MAX_WARNINGS plus a `truncated` summary. The
   * caller may vouch that the first `unchanged` configs are those of the last update (no comparing them).
   */
  update(configs: ReadonlyArray<Record<string, unknown>>, unchanged = 0): StubWarning[] {
    const vouched = unchanged > 0 && unchanged === this.configs.length;
    if (!vouched && !this.grewFrom(configs)) this.reset();
    for (let i = this.stubs.length; i < configs.length; i++) this.add(analysed(configs[i]!), i);
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
    this.flagged = [];
  }

  private add(stub: AnalysedStub, i: number): void {
    this.stubs.push(stub);
    let duplicateId: number | undefined;
    if (stub.id !== undefined) {
      duplicateId = this.idAt.get(stub.id);
      if (duplicateId === undefined) this.idAt.set(stub.id, i);
    }
    const duplicate = this.firstWithKey.get(stub.key);
    if (duplicate === undefined) this.firstWithKey.set(stub.key, i);
    let shadow: number | undefined;
    if (duplicate === undefined) {
      for (const at of this.index.candidates(stub.facts)) {
        const earlier = this.stubs[at]!;
        if (eligibleWhenever(earlier, stub) && covers(earlier.facts, stub.facts)) {
          shadow = at;
          break;
        }
      }
    }
    if (!stub.catchAll) this.index.add(i, stub.facts);
    if (duplicateId !== undefined || duplicate !== undefined || shadow !== undefined || stub.catchAll) {
      this.flagged.push({ index: i, duplicateId, duplicate, shadow });
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
    for (const { index: i, duplicateId, duplicate, shadow } of this.flagged) {
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

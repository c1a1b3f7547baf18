import { canonicalJson, requiredStateOf } from '../model/index.js';
import { covers, factsOf, type PredicateFacts } from './predicate-facts.js';
import { AnchorIndex } from './anchor-index.js';

export type WarningType = 'duplicate_id' | 'exact_duplicate' | 'potentially_shadowed' | 'catch_all' | 'catch_all_not_last' | 'truncated' | 'config_key_ignored';

/** SPEC §2.10 (and §9.6 `config_key_ignored`, which carries `path`); `truncated` carries only `warningType` and `message`. */
export interface StubWarning {
  warningType: WarningType;
  message: string;
  /** `config_key_ignored`: the JSON path of the ignored key. */
  path?: string;
  stubIndex?: number;
  stubId?: string;
  shadowedByIndex?: number;
}

/** SPEC §8: warnings kept per imposter before one `truncated` summary. */
export const MAX_WARNINGS = 100;

interface AnalysedStub {
  index: number;
  id: string | undefined;
  facts: PredicateFacts;
  catchAll: boolean;
  space: unknown;
  scenarioName: unknown;
  requiredState: unknown;
}

function analysed(config: Record<string, unknown>, index: number): AnalysedStub {
  const predicates = config.predicates;
  return {
    index,
    id: typeof config.id === 'string' ? config.id : undefined,
    facts: factsOf(predicates),
    catchAll: predicates === undefined || predicates === null || (Array.isArray(predicates) && predicates.length === 0),
    space: config.space,
    scenarioName: config.scenarioName,
    requiredState: requiredStateOf(config),
  };
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
 * Finds, for each stub, the earliest stub that potentially shadows it.
 *
 * Rule: an earlier stub E potentially shadows a later stub S when E is not a catch-all (those are
 * reported as `catch_all_not_last` instead), E is eligible whenever S is (see `eligibleWhenever`),
 * and every predicate of E is implied by S's predicates — an identical predicate, or
 * for equals/startsWith/endsWith/contains on the same field a constraint of S that is at least as
 * strict (S `equals path /a/b` implies E `startsWith path /a`). Then any request S matches, E
 * matches too, and E comes first. "Potentially": inject predicates can still let a request through to S.
 *
 * Candidates are found through an anchor of E (engine/analysis/anchor-index.ts: an equals, opaque or
 * affix predicate that S must carry or imply), so a typical routing table costs about O(n).
 */
function shadowing(stubs: AnalysedStub[], exact: Set<number>): Map<number, number> {
  const found = new Map<number, number>();
  const index = new AnchorIndex();
  for (const later of stubs) {
    if (!exact.has(later.index)) {
      for (const at of index.candidates(later.facts)) {
        const earlier = stubs[at]!;
        if (eligibleWhenever(earlier, later) && covers(earlier.facts, later.facts)) {
          found.set(later.index, at);
          break;
        }
      }
    }
    if (!later.catchAll) index.add(later.index, later.facts);
  }
  return found;
}

/** Warnings of SPEC §2.10 for a stub list, in stub order, at most MAX_WARNINGS plus a `truncated` summary. */
export function analyzeStubs(configs: ReadonlyArray<Record<string, unknown>>): StubWarning[] {
  const stubs = configs.map(analysed);
  const warnings: StubWarning[] = [];
  const idAt = new Map<string, number>();
  const firstWithKey = new Map<string, number>();
  const duplicateOf = new Map<number, number>();
  configs.forEach((config, index) => {
    const key = duplicateKey(config);
    const first = firstWithKey.get(key);
    if (first === undefined) firstWithKey.set(key, index);
    else duplicateOf.set(index, first);
  });
  const shadowedBy = shadowing(stubs, new Set(duplicateOf.keys()));
  for (const stub of stubs) {
    const i = stub.index;
    if (stub.id !== undefined) {
      const earlier = idAt.get(stub.id);
      if (earlier === undefined) idAt.set(stub.id, i);
      else
        warnings.push({
          warningType: 'duplicate_id',
          message: `stub ${i} has id '${stub.id}', already used by stub ${earlier}`,
          stubIndex: i,
          stubId: stub.id,
        });
    }
    const duplicate = duplicateOf.get(i);
    if (duplicate !== undefined) {
      warnings.push({
        warningType: 'exact_duplicate',
        stubIndex: i,
        shadowedByIndex: duplicate,
        message: `stub ${i} has the same predicates as stub ${duplicate} and will never match`,
      });
    }
    const shadow = shadowedBy.get(i);
    if (shadow !== undefined) {
      warnings.push({
        warningType: 'potentially_shadowed',
        stubIndex: i,
        shadowedByIndex: shadow,
        message: `stub ${i} may never match: stub ${shadow} comes first and matches every request it matches`,
      });
    }
    if (stub.catchAll) {
      warnings.push({ warningType: 'catch_all', stubIndex: i, message: `stub ${i} has no predicates and matches every request` });
      const after = stubs.length - i - 1;
      if (after > 0 && stub.space === undefined && stub.requiredState === undefined) {
        warnings.push({
          warningType: 'catch_all_not_last',
          stubIndex: i,
          message: `stub ${i} matches every request and comes before ${after} other stub${after === 1 ? '' : 's'}`,
        });
      }
    }
  }
  if (warnings.length <= MAX_WARNINGS) return warnings;
  const suppressed = warnings.length - MAX_WARNINGS;
  return [...warnings.slice(0, MAX_WARNINGS), { warningType: 'truncated', message: `${suppressed} more warning${suppressed === 1 ? '' : 's'} suppressed` }];
}

import type { MockRequest } from '../model/index.js';

export type Eligibility = 'ok' | 'skippedSpace' | 'skippedScenarioState';

/** Hooks the engine supplies per imposter; matching itself is stateless. */
export interface MatchContext {
  /** Runs an `inject` predicate's source; absent means injection is unavailable. */
  injectPredicate?: (source: string, request: MockRequest) => boolean | Promise<boolean>;
  /** Runs a `{"_svc": {"script": S}}` predicate (keyed by its config object); absent means scripts are unavailable. */
  scriptPredicate?: (predicate: Record<string, unknown>, request: MockRequest) => Promise<boolean>;
  /** Lets the engine skip stubs for spaces and scenario states without recompiling. */
  isEligible?: (stubIndex: number) => Eligibility;
}

export type CompiledPredicate = (request: MockRequest, ctx: MatchContext) => boolean | Promise<boolean>;

/** `tried` entries a recorded match outcome shows (docs/limits.md); later ones are only counted (`triedOmitted`). */
export const TRIED_CAP = 25;

export type TriedWhy =
  /** `predicateIndex` is left out only for entries past TRIED_CAP, which are counted, never shown. */
  { reason: 'failedPredicate'; predicateIndex?: number } | { reason: 'skippedSpace' } | { reason: 'skippedScenarioState' };

export interface TriedEntry {
  stubIndex: number;
  why: TriedWhy;
}

export interface StubSetMatcher {
  readonly size: number;
  /** Index of the first stub at or after `from` whose predicates all match, or -1. */
  firstMatch(request: MockRequest, ctx: MatchContext, from?: number, trace?: TriedEntry[]): number | Promise<number>;
}

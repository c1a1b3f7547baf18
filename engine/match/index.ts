export type {
  CompiledPredicate,
  Eligibility,
  MatchContext,
  StubSetMatcher,
  TriedEntry,
  TriedWhy,
} from './types.js';
export { TRIED_CAP } from './types.js';
export { PredicateError } from './errors.js';
export { compilePredicate } from './compile-predicate.js';
export { compileStubSet, type StubSetOptions } from './stub-set.js';
export { validatePredicates } from './validate.js';
export { explainPredicates, explainStubs, type FieldMismatch, type PredicateCheck, type PredicateVerdict, type StubExplanation } from './explain.js';
export { selectJsonPath, xpathValueSelector } from './selectors.js';

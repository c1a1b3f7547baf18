import { compilePredicate } from '../../match/index.js';
import type { MockRequest } from '../../model/index.js';

/**
 * Whether the request satisfies the predicates generated from it. Not always: `ignore` or a `jsonpath`
 * can leave out what the request has (mountebank's deepEquals then fails on the field left out). Only a
 * request its own recording would answer may wait for another request's recording of the same
 * predicates and replay it; any other request is proxied and recorded itself, as mountebank does.
 * Generated predicates are plain (no inject, no script): one that is not, or that fails to evaluate,
 * counts as satisfied (the join is then what it was before this check).
 */
export async function answeredByOwnRecording(predicates: ReadonlyArray<Record<string, unknown>>, request: MockRequest): Promise<boolean> {
  try {
    for (const predicate of predicates) {
      if (!(await compilePredicate(predicate)(request, {}))) return false;
    }
    return true;
  } catch {
    return true;
  }
}

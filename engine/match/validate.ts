/**
 * Predicate validation the way mountebank does it: a dry run of every predicate against its fixed
 * test request, reporting what evaluation throws. That keeps its quirks: `or` stops at the first
 * true so a later bad predicate passes, `inject` is not run, a bad nested regex passes unless the
 * dry run reaches it.
 */
import type { MockRequest } from '../model/index.js';
import { compileNode } from './compile-predicate.js';
import { RequestView } from './request-view.js';
import { errorText } from '../model/index.js';

/** mountebank's HTTP testRequest (no `ip`, an empty `form`). */
const DRY_RUN_REQUEST = {
  requestFrom: '',
  method: 'GET',
  path: '/',
  query: {},
  headers: {},
  form: {},
  body: '',
  rawBody: Buffer.alloc(0),
  isBinary: false,
} as unknown as MockRequest;

/** The error message mountebank's dry run would produce for these stub predicates, or null. */
export function validatePredicates(predicates: unknown): string | null {
  if (!predicates) return null;
  if (!Array.isArray(predicates)) return 'predicates must be an array';
  const view = new RequestView(DRY_RUN_REQUEST, true);
  // Every predicate is evaluated (no short-circuit), as mountebank's dry run does.
  for (const predicate of predicates) {
    try {
      compileNode(predicate).evaluate(view, {});
    } catch (error) {
      return errorText(error);
    }
  }
  return null;
}

/**
 * mountebank's predicateSatisfied over normalised values: object expectations match subsets,
 * arrays match when every expected element is found, a string actual is read as JSON when the
 * expectation is an object, and an array actual matches when any element does.
 */
import type { Leaf } from './operators.js';
import { tryJSON, type ValueConfig } from './normalise.js';
import { isObject, prop } from './values.js';

export interface SatisfyEnv {
  readonly leaf: Leaf;
  /** Normalisation applied to JSON found in string values. */
  readonly json: ValueConfig;
  /** mountebank consults `predicate.exists` here whatever the operator is. */
  readonly existsFlag: boolean;
}

export function satisfied(expected: object, actual: unknown, env: SatisfyEnv): boolean {
  if (!actual) return false;
  const container = typeof actual === 'string' ? tryJSON(actual, env.json) : actual;
  for (const key of Object.keys(expected)) {
    if (!fieldSatisfied(prop(expected, key), prop(container, key), expected, container, env)) return false;
  }
  return true;
}

/** One key of an expectation; `expectedParent`/`actualParent` feed the legacy array-of-objects rule. */
export function fieldSatisfied(expected: unknown, actual: unknown, expectedParent: object, actualParent: unknown, env: SatisfyEnv): boolean {
  if (Array.isArray(actual)) {
    if (Array.isArray(expected)) {
      return expected.every((element) => actual.some((candidate) => testPredicate(element, candidate, env)));
    }
    if (env.existsFlag && expected) return true;
    return actual.some((candidate) => testPredicate(expected, candidate, env));
  }
  if (actual === undefined && !Array.isArray(expected) && Array.isArray(actualParent)) {
    // Legacy: {examples: {key: 'x'}} matches any object of an actual array of objects.
    return actualParent.some((candidate) => testPredicate(expectedParent, candidate, env));
  }
  if (isObject(expected)) return satisfied(expected, actual, env);
  return testPredicate(expected, actual, env);
}

export function testPredicate(expected: unknown, actual: unknown, env: SatisfyEnv): boolean {
  const value = actual === undefined ? '' : actual;
  if (isObject(expected)) return satisfied(expected, value, env);
  return env.leaf(expected, value);
}

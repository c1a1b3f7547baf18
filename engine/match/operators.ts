/**
 * Leaf comparisons, called with a normalised expected value and the normalised actual value.
 * They keep JavaScript's coercions because mountebank's results depend on them (numbers compare
 * as strings; endsWith with a non-string expectation degrades to contains; indexOf on a JSON
 * number throws).
 */
import { compileUserPattern, type UserPattern, errorText } from '../model/index.js';
import { PredicateError } from './errors.js';
import { jsString } from './values.js';

export type Leaf = (expected: unknown, actual: unknown) => boolean;

function indexOf(actual: unknown, expected: unknown, position?: number): number {
  if (typeof actual === 'string') return actual.indexOf(String(expected), position);
  if (Array.isArray(actual)) return actual.indexOf(expected, position);
  throw new PredicateError(`cannot search inside a ${actual === null ? 'null' : typeof actual} value`, actual);
}

function lengthOf(value: unknown): number {
  if (value === null || value === undefined) throw new PredicateError('cannot take the length of a null value', value);
  return (value as { length?: unknown }).length as number;
}

export const equalsLeaf: Leaf = (expected, actual) => jsString(expected) === jsString(actual);

export const containsLeaf: Leaf = (expected, actual) => indexOf(actual, expected) >= 0;

export const startsWithLeaf: Leaf = (expected, actual) => indexOf(actual, expected) === 0;

export const endsWithLeaf: Leaf = (expected, actual) => {
  const expectedLength = lengthOf(expected);
  return indexOf(actual, expected, lengthOf(actual) - expectedLength) >= 0;
};

export const existsLeaf: Leaf = (expected, actual) => (expected ? actual !== undefined && actual !== '' : actual === undefined || actual === '');

/**
 * A `matches` pattern compiled once (so that no input can stall the loop: model/user-pattern); a
 * pattern JavaScript rejects is kept as the error to throw.
 */
export function compilePattern(pattern: unknown, flags: string): UserPattern | PredicateError {
  const source = String(pattern);
  try {
    return compileUserPattern(source, flags);
  } catch (error) {
    return new PredicateError(errorText(error), source);
  }
}

/**
 * `matches` leaves for patterns nested in objects: every pattern is compiled up front, but a bad
 * one only throws when a request reaches it (mountebank compiles lazily).
 */
export function matchesLeaf(patterns: Iterable<unknown>, flags: string): Leaf {
  const compiled = new Map<string, UserPattern | PredicateError>();
  for (const pattern of patterns) compiled.set(String(pattern), compilePattern(pattern, flags));
  return (expected, actual) => {
    const source = String(expected);
    let regex = compiled.get(source);
    if (regex === undefined) {
      // Only reached for a bare string expectation, which mountebank walks character by character.
      regex = compilePattern(source, flags);
      compiled.set(source, regex);
    }
    if (regex instanceof PredicateError) throw regex;
    return regex.test(String(actual));
  };
}

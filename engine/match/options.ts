/**
 * How a predicate's parameters shape normalisation. Shared by the compiler and the stub index so
 * both read `caseSensitive`/`keyCaseSensitive`/`except` identically.
 */
import { compileUserPattern, type UserPattern, errorText } from '../model/index.js';
import { PredicateError } from './errors.js';
import type { ValueConfig } from './normalise.js';

export const OPERATORS: ReadonlySet<string> = new Set([
  'equals',
  'deepEquals',
  'contains',
  'startsWith',
  'endsWith',
  'matches',
  'exists',
  'not',
  'or',
  'and',
  'inject',
]);

export type PredicateObject = Record<string, unknown>;

/** The operator mountebank runs: the first operator key in key order; others are ignored. */
export function operatorOf(predicate: unknown): string | undefined {
  if (predicate === null || predicate === undefined) {
    throw new PredicateError('a predicate must be an object', predicate);
  }
  return Object.keys(predicate).find((key) => OPERATORS.has(key));
}

export interface PredicateSettings {
  /** jsonpath selectors are folded unless keyCaseSensitive (after defaulting) is truthy. */
  readonly lowerJsonPath: boolean;
  /** xpath selectors and namespace URIs are folded with the document text. */
  readonly lowerXPath: boolean;
  /** Flags for `matches` patterns. */
  readonly regexFlags: string;
  /** Normalisation of the predicate's expected values. */
  readonly expected: ValueConfig;
  /** Normalisation of the request's values (before any selector). */
  readonly actual: ValueConfig;
}

/**
 * `matches` runs with values case-preserved (regexes keep \W, \S) and keys folded unless
 * caseSensitive; its `except` is case-sensitive and never touches the patterns themselves.
 */
export function settingsFor(operator: string, predicate: PredicateObject): PredicateSettings | PredicateError {
  const caseSensitive = Boolean(predicate.caseSensitive);
  const matches = operator === 'matches';
  const keyCaseSensitive = matches ? caseSensitive : predicate.keyCaseSensitive === undefined ? predicate.caseSensitive : predicate.keyCaseSensitive;
  const keyLower = keyCaseSensitive === false ? true : !caseSensitive;
  let except: UserPattern | undefined;
  if (predicate.except) {
    try {
      except = compileUserPattern(String(predicate.except), matches || caseSensitive ? 'g' : 'gi');
    } catch (error) {
      return new PredicateError(errorText(error), predicate.except);
    }
  }
  const actual: ValueConfig = { lower: !matches && !caseSensitive, keyLower, except };
  const expected: ValueConfig = matches ? { lower: false, keyLower, except: undefined } : actual;
  return {
    lowerJsonPath: !keyCaseSensitive,
    lowerXPath: !matches && !caseSensitive,
    regexFlags: caseSensitive ? '' : 'i',
    expected,
    actual,
  };
}

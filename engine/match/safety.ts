/**
 * Whether evaluating a predicate can throw for some request. mountebank evaluates a stub's
 * predicates in order and a throw becomes a 500, so the index may only skip a stub on a constraint
 * when nothing evaluated before that constraint could have thrown.
 */
import { PredicateError } from './errors.js';
import { transformKey } from './normalise.js';
import { compilePattern } from './operators.js';
import { operatorOf, settingsFor, type PredicateObject } from './options.js';
import { isScalarField, resolveField } from './request-view.js';
import { isObject } from './values.js';

function isPrimitive(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function* patterns(value: unknown): Iterable<unknown> {
  if (typeof value === 'string') {
    // A bare string expectation is walked character by character.
    yield* value;
  } else if (isObject(value)) {
    for (const key of Object.keys(value)) yield* nestedPatterns((value as Record<string, unknown>)[key]);
  }
}

function* nestedPatterns(value: unknown): Iterable<unknown> {
  if (isObject(value)) {
    for (const key of Object.keys(value)) yield* nestedPatterns((value as Record<string, unknown>)[key]);
  } else {
    yield value;
  }
}

/**
 * contains/startsWith/endsWith throw on non-string actuals (JSON numbers, null), which only
 * appear through JSON in string fields or selectors; plain field literals are safe.
 */
function searchNeverThrows(predicate: PredicateObject, raw: unknown, keyLower: boolean): boolean {
  if (predicate.jsonpath || raw === null) return false;
  if (!isObject(raw)) return true;
  return Object.keys(raw).every((key) => {
    const value = (raw as Record<string, unknown>)[key];
    const field = resolveField(transformKey(key, { lower: false, keyLower, except: undefined }), keyLower);
    if (field === undefined) return value !== null;
    if (isScalarField(field)) return isPrimitive(value);
    return isObject(value) && !Array.isArray(value) && Object.values(value).every(isPrimitive);
  });
}

export function neverThrows(predicate: unknown): boolean {
  let operator: string | undefined;
  try {
    operator = operatorOf(predicate);
  } catch {
    return false;
  }
  if (operator === undefined || operator === 'inject') return false;
  const object = predicate as PredicateObject;
  if (operator === 'not') return neverThrows(object.not);
  if (operator === 'and' || operator === 'or') {
    const list = object[operator];
    return Array.isArray(list) && list.every(neverThrows);
  }
  const settings = settingsFor(operator, object);
  if (settings instanceof PredicateError || object.xpath) return false;
  if (object.jsonpath && settings.lowerJsonPath && typeof (Object(object.jsonpath) as { selector?: unknown }).selector !== 'string') return false;
  const raw = object[operator];
  switch (operator) {
    case 'deepEquals':
      return true;
    case 'equals':
    case 'exists':
      return raw !== null;
    case 'matches':
      if (raw === null) return false;
      for (const pattern of patterns(raw)) if (compilePattern(pattern, settings.regexFlags) instanceof PredicateError) return false;
      return true;
    default:
      return searchNeverThrows(object, raw, settings.actual.keyLower);
  }
}

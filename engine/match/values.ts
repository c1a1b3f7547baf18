/**
 * Plain-value helpers that reproduce the JavaScript coercions mountebank's predicate code relies on
 * (toString comparisons, indexOf on whatever JSON produced, property reads on strings).
 */
import { PredicateError } from './errors.js';

export function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** `value.toString()` as mountebank calls it: null and undefined pass through unchanged. */
export function jsString(value: unknown): unknown {
  return value === null || value === undefined ? value : String(value);
}

/** A read-through view of a request map whose keys and values are normalised on demand. */
export class LazyRecord {
  constructor(
    private readonly lookup: (key: string) => unknown,
    private readonly all: () => Record<string, unknown>,
  ) {}

  get(key: string): unknown {
    return this.lookup(key);
  }

  materialize(): Record<string, unknown> {
    return this.all();
  }

  toString(): string {
    return '[object Object]';
  }
}

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

/** `container[key]` for the values predicates see (JSON data, normalised request maps). */
export function prop(container: unknown, key: string): unknown {
  if (container instanceof LazyRecord) return container.get(key);
  if (typeof container === 'string' || Array.isArray(container)) {
    if (key === 'length') return container.length;
    if (ARRAY_INDEX.test(key)) {
      const i = Number(key);
      return i < container.length ? container[i] : undefined;
    }
    return undefined;
  }
  if (isObject(container)) {
    return Object.hasOwn(container, key) ? (container as Record<string, unknown>)[key] : undefined;
  }
  return undefined;
}

/** Own-property assignment that treats `__proto__` as data, like JSON.parse does. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** Key-sorted JSON text, equal exactly when safe-stable-stringify's output would be equal. */
export function canonical(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'function') return undefined;
  if (value instanceof LazyRecord) return canonical(value.materialize());
  if (!isObject(value)) return JSON.stringify(value);
  if (Array.isArray(value)) {
    return '[' + value.map((element) => canonical(element) ?? 'null').join(',') + ']';
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const text = canonical(record[key]);
    if (text !== undefined) parts.push(JSON.stringify(key) + ':' + text);
  }
  return '{' + parts.join(',') + '}';
}

/** mountebank's array comparator (objects by their stable JSON, everything else with `<`). */
export function compareForSort(a: unknown, b: unknown): number {
  if (isObject(a) && isObject(b)) return compareForSort(canonical(a), canonical(b));
  return (a as string) < (b as string) ? -1 : 1;
}

/** Sorted copy: mountebank sorts in place, but our inputs may be shared caches. */
export function sortedCopy(values: readonly unknown[]): unknown[] {
  return values.slice().sort(compareForSort);
}

/** mountebank's forceStrings: every scalar becomes its toString(), null becomes 'null'. */
export function forceStrings(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.map(forceStrings);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) setOwn(out, key, forceStrings((value as Record<string, unknown>)[key]));
    return out;
  }
  if (value === undefined) throw new PredicateError('cannot compare an undefined value');
  return String(value);
}

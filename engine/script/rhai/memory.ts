/**
 * What values cost against a run's allocation budget (`Limits.maxMemoryBytes`): approximate V8 heap
 * bytes, charged when a value is created or grows, never refunded (a cumulative count, so a run's
 * verdict does not depend on when the garbage collector ran). Containers are charged per slot, not
 * per element value: an element was charged when it was created. Strings are charged for the
 * characters a concatenation adds, since V8 shares the operands (a rope) rather than copying them.
 */
import type { NativeFn } from './natives.js';
import { RChar, type Value } from './values.js';

/** A heap object: a string's or array's header, a rope node of a concatenation, a boxed value. */
export const OBJECT_BYTES = 32;
/** One array slot, with room for the backing store's growth slack. */
export const SLOT_BYTES = 16;
/** One map entry: key, value and hash-table chain. */
export const ENTRY_BYTES = 48;

/** The value's own storage: characters of a string, slots of an array, entries of a map. */
export function shallowBytes(v: Value): number {
  if (typeof v === 'string') return OBJECT_BYTES + v.length;
  if (Array.isArray(v)) return OBJECT_BYTES + SLOT_BYTES * v.length;
  if (v instanceof Map) return OBJECT_BYTES + ENTRY_BYTES * v.size;
  if (v instanceof RChar) return OBJECT_BYTES * 2;
  return 0;
}

/**
 * A container and every container in it; with `strings`, the strings in it too (a freshly parsed or
 * split value, where nothing is shared with values already charged).
 */
export function deepBytes(v: Value, strings: boolean): number {
  if (Array.isArray(v)) {
    let bytes = shallowBytes(v);
    for (const x of v) if (typeof x === 'object' || (strings && typeof x === 'string')) bytes += deepBytes(x, strings);
    return bytes;
  }
  if (v instanceof Map) {
    let bytes = shallowBytes(v);
    for (const [k, x] of v) {
      if (strings) bytes += shallowBytes(k);
      if (typeof x === 'object' || (strings && typeof x === 'string')) bytes += deepBytes(x, strings);
    }
    return bytes;
  }
  return typeof v === 'string' ? (strings ? shallowBytes(v) : 0) : shallowBytes(v);
}

/** What a run charges (runtime.ts's Run), kept abstract so this module does not import its user. */
export interface Charged {
  charge(bytes: number, pos: { line: number; col: number }): void;
  thisOut: Value;
}

/** A native returning a new value: the value's own storage is charged. */
export function fresh<R extends Charged>(fn: NativeFn<R>): NativeFn<R> {
  return (args, r, pos) => {
    const v = fn(args, r, pos);
    r.charge(shallowBytes(v), pos);
    return v;
  };
}

/** A native returning a new value none of whose parts existed before (parsed, split): all of it is charged. */
export function freshDeep<R extends Charged>(fn: NativeFn<R>): NativeFn<R> {
  return (args, r, pos) => {
    const v = fn(args, r, pos);
    r.charge(deepBytes(v, true), pos);
    return v;
  };
}

/**
 * A native growing its receiver in place: an array or map (first argument), or a string, whose new
 * value comes back through `thisOut`. The growth is charged.
 */
export function grows<R extends Charged>(fn: NativeFn<R>): NativeFn<R> {
  return (args, r, pos) => {
    const before = shallowBytes(args[0]);
    const v = fn(args, r, pos);
    const after = shallowBytes(typeof args[0] === 'string' && typeof r.thisOut === 'string' ? r.thisOut : args[0]);
    if (after > before) r.charge(after - before, pos);
    return v;
  };
}

/** The characters `a + b` adds beyond its longest string operand (the rest is shared). */
export function concatBytes(a: Value, b: Value, result: string): number {
  const shared = Math.max(typeof a === 'string' ? a.length : 0, typeof b === 'string' ? b.length : 0);
  return OBJECT_BYTES + result.length - shared;
}

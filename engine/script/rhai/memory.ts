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

/** A value with everything in it: a freshly parsed or split value shares nothing with values already charged. */
export function deepBytes(v: Value): number {
  let bytes = shallowBytes(v);
  if (Array.isArray(v)) for (const x of v) bytes += deepBytes(x);
  else if (v instanceof Map) for (const [k, x] of v) bytes += shallowBytes(k) + deepBytes(x);
  return bytes;
}

// Rhai has value semantics for arrays and maps: storing one somewhere copies it (strings are shared,
// being immutable).
let copied = 0;

function copy(v: Value): Value {
  if (Array.isArray(v)) {
    copied += OBJECT_BYTES + SLOT_BYTES * v.length;
    return v.map(copy);
  }
  if (v instanceof Map) {
    copied += OBJECT_BYTES + ENTRY_BYTES * v.size;
    const m = new Map<string, Value>();
    for (const [k, x] of v) m.set(k, copy(x));
    return m;
  }
  return v;
}

/** The copy of a stored array or map, its containers charged in the same pass. */
export function chargedCopy(v: Value, r: Charged, pos: { line: number; col: number }): Value {
  copied = 0;
  const c = copy(v);
  r.charge(copied, pos);
  return c;
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
    r.charge(deepBytes(v), pos);
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

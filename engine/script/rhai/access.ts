/**
 * Indexing (`x[i]`) and property access (`x.p`) for built-in types, falling back to registered
 * natives (`index$get`, `index$set`, `get$name`, `set$name`) for other types.
 */
import { runtimeError, type Pos } from './errors.js';
import { NO_OUT, type Run } from './runtime.js';
import { RChar, charAt, chars, isInt, normBig, strLen, typeName, type Int, type Value } from './values.js';
import { ENTRY_BYTES } from './memory.js';

function bounds(what: string, unit: string, index: Int, max: number, pos: Pos): Error {
  if (max === 0) return runtimeError(`${what} index ${index} out of bounds: ${what.toLowerCase()} is empty`, pos);
  return runtimeError(`${what} index ${index} out of bounds: only ${max} ${unit}${max === 1 ? '' : 's'} in ${what.toLowerCase()}`, pos);
}

/** Resolves a possibly negative (from the end) index; -1 when out of range. */
export function normIndex(i: Int, len: number): number {
  const n = Number(i);
  const j = n < 0 ? len + n : n;
  return j >= 0 && j < len ? j : -1;
}

function keyOf(k: Value, pos: Pos): string {
  if (typeof k === 'string') return k;
  if (k instanceof RChar) return k.c;
  throw runtimeError(`Data type incorrect: ${typeName(k)} (expecting string)`, pos);
}

export function indexGet(o: Value, k: Value, r: Run, pos: Pos): Value {
  if (Array.isArray(o)) {
    if (!isInt(k)) throw runtimeError(`Data type incorrect: ${typeName(k)} (expecting i64)`, pos);
    const j = normIndex(k, o.length);
    if (j < 0) throw bounds('Array', 'element', k, o.length, pos);
    return o[j];
  }
  if (o instanceof Map) return o.get(keyOf(k, pos));
  if (typeof o === 'string') {
    if (!isInt(k)) throw runtimeError(`Data type incorrect: ${typeName(k)} (expecting i64)`, pos);
    const length = strLen(o);
    const j = normIndex(k, length);
    if (j < 0) throw bounds('String', 'character', k, length, pos);
    return new RChar(charAt(o, j));
  }
  if (isInt(o) && isInt(k)) {
    const bit = bitIndex(k, pos);
    return ((BigInt(o) >> BigInt(bit)) & 1n) === 1n;
  }
  const ov = r.prog.natives.resolve('index$get', [o, k]);
  if (ov) return ov.fn([o, k], r, pos);
  throw runtimeError(`Indexing not supported for type ${typeName(o)}`, pos);
}

function bitIndex(k: Int, pos: Pos): number {
  const n = Number(k);
  const j = n < 0 ? 64 + n : n;
  if (j < 0 || j >= 64) throw runtimeError(`Bit-field index ${k} out of bounds: only 64 bits in number`, pos);
  return j;
}

/**
 * Stores `v` at `o[k]`. Arrays and maps change in place (returns NO_OUT); strings and integers are
 * values, so the updated value is returned for the caller to store back.
 */
export function indexSet(o: Value, k: Value, v: Value, r: Run, pos: Pos): Value {
  if (Array.isArray(o)) {
    if (!isInt(k)) throw runtimeError(`Data type incorrect: ${typeName(k)} (expecting i64)`, pos);
    const j = normIndex(k, o.length);
    if (j < 0) throw bounds('Array', 'element', k, o.length, pos);
    o[j] = v;
    return NO_OUT;
  }
  if (o instanceof Map) {
    const size = o.size;
    o.set(keyOf(k, pos), v);
    if (o.size > size) r.charge(ENTRY_BYTES, pos);
    r.checkMap(o, pos);
    return NO_OUT;
  }
  if (typeof o === 'string') {
    if (!isInt(k)) throw runtimeError(`Data type incorrect: ${typeName(k)} (expecting i64)`, pos);
    if (!(v instanceof RChar)) throw runtimeError(`Data type incorrect: ${typeName(v)} (expecting char)`, pos);
    const cs = chars(o);
    const j = normIndex(k, cs.length);
    if (j < 0) throw bounds('String', 'character', k, cs.length, pos);
    cs[j] = v.c;
    return cs.join('');
  }
  if (isInt(o) && isInt(k)) {
    if (typeof v !== 'boolean') throw runtimeError(`Data type incorrect: ${typeName(v)} (expecting bool)`, pos);
    const mask = 1n << BigInt(bitIndex(k, pos));
    const b = BigInt.asIntN(64, v ? BigInt(o) | mask : BigInt(o) & ~mask);
    return normBig(b)!;
  }
  const ov = r.prog.natives.resolve('index$set', [o, k, v]);
  if (ov) {
    ov.fn([o, k, v], r, pos);
    return NO_OUT;
  }
  throw runtimeError(`Indexing not supported for type ${typeName(o)}`, pos);
}

export function propGet(o: Value, name: string, r: Run, pos: Pos): Value {
  if (o instanceof Map) return o.get(name);
  const ov = r.prog.natives.resolve('get$' + name, [o]);
  if (ov) return ov.fn([o], r, pos);
  throw runtimeError(`Property not found: ${name} (for type ${typeName(o)})`, pos);
}

export function propSet(o: Value, name: string, v: Value, r: Run, pos: Pos): void {
  if (o instanceof Map) {
    const size = o.size;
    o.set(name, v);
    if (o.size > size) r.charge(ENTRY_BYTES, pos);
    r.checkMap(o, pos);
    return;
  }
  const ov = r.prog.natives.resolve('set$' + name, [o, v]);
  if (ov) {
    ov.fn([o, v], r, pos);
    return;
  }
  throw runtimeError(`Cannot set property ${name} of type ${typeName(o)}`, pos);
}

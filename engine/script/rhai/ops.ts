/**
 * Built-in operators with i64 semantics: integer overflow is an error, division truncates, mixed
 * int/float arithmetic yields a float. The compiler inlines the small-int fast paths and calls these
 * for everything else.
 */
import { runtimeError, type Pos } from './errors.js';
import { signature } from './natives.js';
import type { Run } from './runtime.js';
import { RChar, RFloat, RRange, compareValues, display, isInt, normBig, typeName, valuesEqual, type Int, type RMap, type Value } from './values.js';

const MAX_SAFE = 9007199254740991;

function opError(op: string, a: Value, b: Value, pos: Pos): Error {
  return runtimeError(`Function not found: ${signature(op, [a, b])}`, pos);
}

/** No built-in meaning: a registered native may define the operator for its types. */
function viaNative(op: string, a: Value, b: Value, pos: Pos, r: Run | undefined): Value {
  const ov = r?.prog.natives.resolve(op, [a, b]);
  if (ov && r) return ov.fn([a, b], r, pos);
  throw opError(op, a, b, pos);
}

function overflow(what: string, a: Int, op: string, b: Int, pos: Pos): Error {
  return runtimeError(`${what} overflow: ${a} ${op} ${b}`, pos);
}

/** Exact i64 result of a bigint computation, or an overflow error. */
function big(r: bigint, what: string, a: Int, op: string, b: Int, pos: Pos): Int {
  const n = normBig(r);
  if (n === undefined) throw overflow(what, a, op, b, pos);
  return n;
}

function asFloat(v: Value): number | undefined {
  if (v instanceof RFloat) return v.v;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  return undefined;
}

export function add(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (isInt(a) && isInt(b)) {
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a + b;
      if (r <= MAX_SAFE && r >= -MAX_SAFE) return r;
    }
    return big(BigInt(a) + BigInt(b), 'Addition', a, '+', b, pos);
  }
  if (typeof a === 'string' || typeof b === 'string' || a instanceof RChar || b instanceof RChar) {
    if (typeof a === 'string' || typeof b === 'string' || (a instanceof RChar && b instanceof RChar)) return display(a) + display(b);
  }
  if (a instanceof RFloat || b instanceof RFloat) {
    const x = asFloat(a);
    const y = asFloat(b);
    if (x !== undefined && y !== undefined) return new RFloat(x + y);
  }
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (a instanceof Map && b instanceof Map) {
    const m: RMap = new Map(a);
    for (const [k, v] of b) m.set(k, v);
    return m;
  }
  return viaNative('+', a, b, pos, r);
}

export function sub(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (isInt(a) && isInt(b)) {
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a - b;
      if (r <= MAX_SAFE && r >= -MAX_SAFE) return r;
    }
    return big(BigInt(a) - BigInt(b), 'Subtraction', a, '-', b, pos);
  }
  return floatOp('-', a, b, pos, r, (x, y) => x - y);
}

export function mul(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (isInt(a) && isInt(b)) {
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a * b;
      if (r <= MAX_SAFE && r >= -MAX_SAFE) return r === 0 ? 0 : r;
    }
    return big(BigInt(a) * BigInt(b), 'Multiplication', a, '*', b, pos);
  }
  return floatOp('*', a, b, pos, r, (x, y) => x * y);
}

export function div(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (isInt(a) && isInt(b)) {
    if (b === 0) throw runtimeError(`Division by zero: ${a} / ${b}`, pos);
    if (typeof a === 'number' && typeof b === 'number') return Math.trunc(a / b) || 0;
    return big(BigInt(a) / BigInt(b), 'Division', a, '/', b, pos);
  }
  return floatOp('/', a, b, pos, r, (x, y) => x / y);
}

export function rem(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (isInt(a) && isInt(b)) {
    if (b === 0) throw runtimeError(`Modulo division by zero: ${a} % ${b}`, pos);
    if (typeof a === 'number' && typeof b === 'number') return a % b || 0;
    return big(BigInt(a) % BigInt(b), 'Modulo', a, '%', b, pos);
  }
  return floatOp('%', a, b, pos, r, (x, y) => x % y);
}

export function pow(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (isInt(a) && isInt(b)) {
    if (b < 0) throw runtimeError(`Integer raised to a negative power: ${a} ** ${b}`, pos);
    if (typeof a === 'number' && typeof b === 'number') {
      const r = a ** b;
      if (r <= MAX_SAFE && r >= -MAX_SAFE) return r;
    }
    if (Number(b) > 64 && a !== 0 && a !== 1 && a !== -1) throw overflow('Power', a, '**', b, pos);
    return big(BigInt(a) ** BigInt(b), 'Power', a, '**', b, pos);
  }
  return floatOp('**', a, b, pos, r, (x, y) => x ** y);
}

function floatOp(op: string, a: Value, b: Value, pos: Pos, r: Run | undefined, f: (x: number, y: number) => number): Value {
  if (a instanceof RFloat || b instanceof RFloat) {
    const x = asFloat(a);
    const y = asFloat(b);
    if (x !== undefined && y !== undefined) return new RFloat(f(x, y));
  }
  return viaNative(op, a, b, pos, r);
}

export function neg(a: Value, pos: Pos): Value {
  if (typeof a === 'number') return a === 0 ? 0 : -a;
  if (typeof a === 'bigint') {
    const n = normBig(-a);
    if (n === undefined) throw runtimeError(`Negation overflow: -${a}`, pos);
    return n;
  }
  if (a instanceof RFloat) return new RFloat(-a.v);
  throw runtimeError(`Function not found: ${signature('-', [a])}`, pos);
}

function bits(a: Value, b: Value, op: string, pos: Pos, r: Run | undefined, f: (x: bigint, y: bigint) => bigint): Value {
  if (isInt(a) && isInt(b)) return normBig(BigInt.asIntN(64, f(BigInt(a), BigInt(b))))!;
  return viaNative(op, a, b, pos, r);
}

export function bitAnd(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (typeof a === 'boolean' && typeof b === 'boolean') return a && b;
  if (typeof a === 'number' && typeof b === 'number' && (a | 0) === a && (b | 0) === b) return a & b;
  return bits(a, b, '&', pos, r, (x, y) => x & y);
}

export function bitOr(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (typeof a === 'boolean' && typeof b === 'boolean') return a || b;
  if (typeof a === 'number' && typeof b === 'number' && (a | 0) === a && (b | 0) === b) return a | b;
  return bits(a, b, '|', pos, r, (x, y) => x | y);
}

export function bitXor(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (typeof a === 'boolean' && typeof b === 'boolean') return a !== b;
  if (typeof a === 'number' && typeof b === 'number' && (a | 0) === a && (b | 0) === b) return a ^ b;
  return bits(a, b, '^', pos, r, (x, y) => x ^ y);
}

export function shl(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (isInt(a) && isInt(b) && b < 0) return shr(a, neg(b, pos), pos, r);
  if (isInt(b) && b >= 64) throw runtimeError(`Left-shift by too many bits: ${String(a)} << ${b}`, pos);
  return bits(a, b, '<<', pos, r, (x, y) => x << y);
}

export function shr(a: Value, b: Value, pos: Pos, r?: Run): Value {
  if (isInt(a) && isInt(b) && b < 0) return shl(a, neg(b, pos), pos, r);
  if (isInt(b) && b >= 64) throw runtimeError(`Right-shift by too many bits: ${String(a)} >> ${b}`, pos);
  return bits(a, b, '>>', pos, r, (x, y) => x >> y);
}

export function eq(a: Value, b: Value): boolean {
  return a === b || valuesEqual(a, b);
}

/** `<`, `<=`, `>`, `>=`: values of different types compare false, as in Rhai. */
export function compare(op: string, a: Value, b: Value, pos: Pos): boolean {
  const c = compareValues(a, b);
  if (c === undefined) {
    if (typeName(a) === typeName(b) && !(a instanceof RFloat)) throw opError(op, a, b, pos);
    return false;
  }
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

export function range(a: Value, b: Value, inclusive: boolean, pos: Pos): RRange {
  if (!isInt(a) || !isInt(b)) throw opError(inclusive ? '..=' : '..', a, b, pos);
  return new RRange(a, b, inclusive);
}

export const BINARY_OPS: Record<string, (a: Value, b: Value, pos: Pos, r?: Run) => Value> = {
  '+': add,
  '-': sub,
  '*': mul,
  '/': div,
  '%': rem,
  '**': pow,
  '&': bitAnd,
  '|': bitOr,
  '^': bitXor,
  '<<': shl,
  '>>': shr,
};

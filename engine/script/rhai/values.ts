/**
 * Rhai value representation.
 *
 * Integers are the hot type, so they stay unboxed: an i64 is a JS `number` while it is a safe integer
 * and a `bigint` only outside ±(2^53-1); every integer result is normalised to that rule so `===` works.
 * Floats are boxed in `RFloat` so that `1` and `1.0` stay distinct types. `()` is `undefined`.
 */
import type { Pos } from './errors.js';

export class RFloat {
  constructor(readonly v: number) {}
}

/** A single Unicode scalar value. */
export class RChar {
  constructor(readonly c: string) {}
}

export class RRange {
  constructor(
    readonly start: Int,
    readonly end: Int,
    readonly inclusive: boolean,
  ) {}
}

export class RTimestamp {
  constructor(readonly t: number) {}
}

/** Something a function pointer can point at directly (closures, host functions). */
export interface Callable {
  /** Number of declared parameters, or -1 when any count is accepted. */
  readonly arity: number;
  invoke(run: unknown, args: Value[], self: Slot | undefined, pos: Pos): Value;
}

export class FnPtr {
  constructor(
    readonly name: string,
    readonly curried: Value[] = [],
    readonly target?: Callable,
  ) {}
  get isAnonymous(): boolean {
    return this.target !== undefined && this.name.startsWith('anon$');
  }
}

/** A mutable place a method call can write back to (`this`). */
export interface Slot {
  get(): Value;
  set(v: Value): void;
}

export type Int = number | bigint;
export type RMap = Map<string, Value>;
export type Value = undefined | boolean | number | bigint | string | RFloat | RChar | Value[] | RMap | FnPtr | RRange | RTimestamp | object;

export const I64_MAX = 9223372036854775807n;
export const I64_MIN = -9223372036854775808n;

export function isInt(v: Value): v is Int {
  return typeof v === 'number' || typeof v === 'bigint';
}

/** Normalises a bigint to the int representation, or undefined when it does not fit in i64. */
export function normBig(b: bigint): Int | undefined {
  if (b > I64_MAX || b < I64_MIN) return undefined;
  return b <= 9007199254740991n && b >= -9007199254740991n ? Number(b) : b;
}

export function intToNumber(v: Int): number {
  return typeof v === 'number' ? v : Number(v);
}

export function typeName(v: Value): string {
  switch (typeof v) {
    case 'undefined':
      return '()';
    case 'boolean':
      return 'bool';
    case 'number':
    case 'bigint':
      return 'i64';
    case 'string':
      return 'string';
  }
  if (v instanceof RFloat) return 'f64';
  if (v instanceof RChar) return 'char';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Map) return 'map';
  if (v instanceof FnPtr) return 'Fn';
  if (v instanceof RRange) return v.inclusive ? 'range=' : 'range';
  if (v instanceof RTimestamp) return 'timestamp';
  return (v as object).constructor?.name ?? 'object';
}

export function sortedKeys(m: RMap): string[] {
  return [...m.keys()].sort(compareStrings);
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Strings are sequences of Unicode scalar values in Rhai; JS strings are UTF-16, so only strings
// holding surrogate pairs need the slower code-point path.
const SURROGATE = /[\uD800-\uDFFF]/;

export function chars(s: string): string[] {
  return SURROGATE.test(s) ? Array.from(s) : s.split('');
}

/** Counts characters without building an array of them (a long string would cost 8 bytes a character). */
export function strLen(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** Characters `from` to `to` (character indices, already clamped); without surrogates, no array is built. */
export function charSlice(s: string, from: number, to: number): string {
  return SURROGATE.test(s) ? Array.from(s).slice(from, to).join('') : s.slice(from, to);
}

/** The character at a valid index (see charSlice). */
export function charAt(s: string, index: number): string {
  return SURROGATE.test(s) ? Array.from(s)[index] : s[index];
}

// ---------------------------------------------------------------------------------------------
// Display / Debug formatting.

export function formatFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const a = Math.abs(x);
  if (a === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // Rhai switches to scientific notation outside this "natural" range.
  if (a > 1e13 || a < 1e-13) return x.toExponential().replace('e+', 'e');
  const s = plainDecimal(x);
  return s.includes('.') ? s : s + '.0';
}

function plainDecimal(x: number): string {
  const s = String(x);
  const e = s.indexOf('e');
  if (e < 0) return s;
  // Only small magnitudes reach here (JS uses exponents below 1e-6).
  const neg = x < 0;
  const mant = s.slice(neg ? 1 : 0, e).replace('.', '');
  const exp = Number(s.slice(e + 1));
  return (neg ? '-' : '') + '0.' + '0'.repeat(-exp - 1) + mant;
}

/** The `to_string` / `print` form. */
export function display(v: Value): string {
  switch (typeof v) {
    case 'undefined':
      return '';
    case 'string':
      return v;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v);
  }
  if (v instanceof RChar) return v.c;
  return debug(v);
}

/** The `debug` / `to_debug` form. */
export function debug(v: Value): string {
  switch (typeof v) {
    case 'undefined':
      return '()';
    case 'string':
      return quote(v, '"');
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v);
  }
  if (v instanceof RFloat) return formatFloat(v.v);
  if (v instanceof RChar) return quote(v.c, "'");
  if (Array.isArray(v)) return '[' + v.map(debug).join(', ') + ']';
  if (v instanceof Map) {
    const parts = sortedKeys(v).map((k) => `${quote(k, '"')}: ${debug(v.get(k))}`);
    return '#{' + parts.join(', ') + '}';
  }
  if (v instanceof FnPtr) return `Fn(${v.name})`;
  if (v instanceof RRange) return `${v.start}..${v.inclusive ? '=' : ''}${v.end}`;
  if (v instanceof RTimestamp) return '<timestamp>';
  return `<${typeName(v)}>`;
}

function quote(s: string, q: string): string {
  let out = q;
  for (const ch of s) {
    switch (ch) {
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\0':
        out += '\\0';
        break;
      default:
        if (ch === q) out += '\\' + ch;
        else {
          const cp = ch.codePointAt(0)!;
          out += cp < 0x20 || cp === 0x7f ? `\\u{${cp.toString(16)}}` : ch;
        }
    }
  }
  return out + q;
}

// ---------------------------------------------------------------------------------------------
// Equality and ordering.

export function valuesEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === 'number' || ta === 'bigint') && (tb === 'number' || tb === 'bigint')) return false;
  if (a instanceof RFloat) {
    if (b instanceof RFloat) return a.v === b.v;
    if (tb === 'number' || tb === 'bigint') return a.v === Number(b);
    return false;
  }
  if (b instanceof RFloat) return (ta === 'number' || ta === 'bigint') && Number(a) === b.v;
  if (a instanceof RChar) return b instanceof RChar ? a.c === b.c : tb === 'string' && a.c === b;
  if (b instanceof RChar) return ta === 'string' && a === b.c;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !valuesEqual(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof RRange && b instanceof RRange) return a.start === b.start && a.end === b.end && a.inclusive === b.inclusive;
  if (a instanceof FnPtr && b instanceof FnPtr) return a.name === b.name && a.target === b.target;
  return false;
}

/**
 * Orders two values for `<`, `>` and `sort`; undefined when the pair is not comparable.
 * Mixed int/float compare numerically; chars compare with strings by text.
 */
export function compareValues(a: Value, b: Value): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) {
    if (typeof na === 'bigint' && typeof nb === 'bigint') return na < nb ? -1 : na > nb ? 1 : 0;
    const x = Number(na);
    const y = Number(nb);
    return x < y ? -1 : x > y ? 1 : x === y ? 0 : undefined;
  }
  const sa = textOf(a);
  const sb = textOf(b);
  if (sa !== undefined && sb !== undefined) return compareStrings(sa, sb);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a === undefined && b === undefined) return 0;
  return undefined;
}

function numeric(v: Value): number | bigint | undefined {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (v instanceof RFloat) return v.v;
  return undefined;
}

function textOf(v: Value): string | undefined {
  if (typeof v === 'string') return v;
  if (v instanceof RChar) return v.c;
  return undefined;
}

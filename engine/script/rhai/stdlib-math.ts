/**
 * Numeric functions for i64 and f64 (Rhai's arithmetic and math packages).
 */
import { runtimeError, type Pos } from './errors.js';
import type { NativeRegistry } from './natives.js';
import type { Run } from './runtime.js';
import { neg } from './ops.js';
import { RChar, RFloat, compareValues, normBig, type Int, type Value } from './values.js';
import { fresh } from './memory.js';

const f = (v: Value): number => (v instanceof RFloat ? v.v : Number(v as Int));

function floatToInt(x: number, pos: Pos): Int {
  const t = Math.trunc(x);
  const n = Number.isFinite(t) ? normBig(BigInt(t)) : undefined;
  if (n === undefined) throw runtimeError(`Integer overflow: ${x} cannot be converted to i64`, pos);
  return n;
}

/** Parses an integer string the way Rust's i64::from_str_radix does (no prefix, optional sign). */
export function parseIntText(s: string, radix: number, pos: Pos): Int {
  const digits =
    radix === 10 ? /^[+-]?[0-9]+$/ : radix === 16 ? /^[+-]?[0-9a-fA-F]+$/ : radix === 8 ? /^[+-]?[0-7]+$/ : radix === 2 ? /^[+-]?[01]+$/ : undefined;
  const t = s.trim();
  if (!digits) throw runtimeError(`Invalid radix: ${radix}`, pos);
  if (!digits.test(t)) throw runtimeError(`Error parsing integer number '${s}': invalid digit found in string`, pos);
  const neg = t.startsWith('-');
  const body = t.replace(/^[+-]/, '');
  const prefix = radix === 16 ? '0x' : radix === 8 ? '0o' : radix === 2 ? '0b' : '';
  const b = BigInt(prefix + body);
  const n = normBig(neg ? -b : b);
  if (n === undefined) throw runtimeError(`Error parsing integer number '${s}': number too large to fit in target type`, pos);
  return n;
}

export function parseFloatText(s: string, pos: Pos): RFloat {
  const t = s.trim();
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|NaN)$/i.test(t))
    throw runtimeError(`Error parsing floating-point number '${s}': invalid float literal`, pos);
  const l = t.toLowerCase().replace(/^\+/, '');
  if (l === 'inf' || l === 'infinity') return new RFloat(Infinity);
  if (l === '-inf' || l === '-infinity') return new RFloat(-Infinity);
  return new RFloat(Number(t));
}

export function registerMath(n: NativeRegistry<Run>): void {
  n.add('abs', ['i64'], ([x], _r, pos) => ((x as Int) < 0 ? neg(x, pos) : x));
  n.add('abs', ['f64'], ([x]) => new RFloat(Math.abs(f(x))));
  n.add('sign', ['i64'], ([x]) => ((x as Int) > 0 ? 1 : (x as Int) < 0 ? -1 : 0));
  n.add('sign', ['f64'], ([x]) => (f(x) > 0 ? 1 : f(x) < 0 ? -1 : 0));
  for (const [name, pick] of [
    ['min', -1],
    ['max', 1],
  ] as const) {
    n.add(name, ['i64', 'i64'], ([a, b]) => (compareValues(a, b)! * pick >= 0 ? a : b));
    n.add(name, ['num', 'num'], ([a, b]) => {
      const x = f(a);
      const y = f(b);
      return new RFloat(pick < 0 ? Math.min(x, y) : Math.max(x, y));
    });
    n.add(name, ['text', 'text'], ([a, b]) => (compareValues(a, b)! * pick >= 0 ? a : b));
  }

  // Float rounding: methods and properties, returning floats as Rhai does.
  const rounding: [string, (x: number) => number][] = [
    ['floor', Math.floor],
    ['ceiling', Math.ceil],
    ['round', (x) => (x < 0 ? -Math.round(-x) : Math.round(x))],
    ['int', Math.trunc],
    ['fraction', (x) => x - Math.trunc(x)],
  ];
  for (const [name, g] of rounding) {
    n.add(name, ['f64'], ([x]) => new RFloat(g(f(x))));
    n.add('get$' + name, ['f64'], ([x]) => new RFloat(g(f(x))));
  }
  const unaryFloat: [string, (x: number) => number][] = [
    ['sqrt', Math.sqrt],
    ['exp', Math.exp],
    ['ln', Math.log],
    ['log', Math.log10],
    ['sin', Math.sin],
    ['cos', Math.cos],
    ['tan', Math.tan],
    ['asin', Math.asin],
    ['acos', Math.acos],
    ['atan', Math.atan],
    ['sinh', Math.sinh],
    ['cosh', Math.cosh],
    ['tanh', Math.tanh],
    ['asinh', Math.asinh],
    ['acosh', Math.acosh],
    ['atanh', Math.atanh],
    ['to_degrees', (x) => (x * 180) / Math.PI],
    ['to_radians', (x) => (x * Math.PI) / 180],
  ];
  for (const [name, g] of unaryFloat) n.add(name, ['num'], ([x]) => new RFloat(g(f(x))));
  n.add('log', ['num', 'num'], ([x, b]) => new RFloat(Math.log(f(x)) / Math.log(f(b))));
  n.add('atan', ['num', 'num'], ([y, x]) => new RFloat(Math.atan2(f(y), f(x))));
  n.add('hypot', ['num', 'num'], ([x, y]) => new RFloat(Math.hypot(f(x), f(y))));
  n.add('PI', [], () => new RFloat(Math.PI));
  n.add('E', [], () => new RFloat(Math.E));

  for (const [name, g] of [
    ['is_nan', Number.isNaN],
    ['is_finite', Number.isFinite],
    ['is_infinite', (x: number) => Math.abs(x) === Infinity],
  ] as const) {
    n.add(name, ['f64'], ([x]) => g(f(x)));
    n.add('get$' + name, ['f64'], ([x]) => g(f(x)));
  }
  n.add('is_zero', ['num'], ([x]) => f(x) === 0);
  n.add('is_odd', ['i64'], ([x]) => BigInt(x as Int) % 2n !== 0n);
  n.add('is_even', ['i64'], ([x]) => BigInt(x as Int) % 2n === 0n);

  n.add('to_int', ['i64'], ([x]) => x);
  n.add('to_int', ['f64'], ([x], _r, pos) => floatToInt(f(x), pos));
  n.add('to_int', ['char'], ([c]) => (c as RChar).c.codePointAt(0)!);
  n.add('to_int', ['bool'], ([b]) => (b ? 1 : 0));
  n.add('to_float', ['num'], ([x]) => new RFloat(f(x)));
  n.add('to_char', ['i64'], ([x], _r, pos) => {
    const cp = Number(x);
    if (cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw runtimeError(`Invalid character code: ${x}`, pos);
    return new RChar(String.fromCodePoint(cp));
  });
  for (const [name, radix] of [
    ['to_hex', 16],
    ['to_octal', 8],
    ['to_binary', 2],
  ] as const) {
    // Negative numbers print as their 64-bit two's complement, like Rust's {:x}.
    n.add(name, ['i64'], ([x]) => BigInt.asUintN(64, BigInt(x as Int)).toString(radix));
  }
  n.add('parse_int', ['string'], ([s], _r, pos) => parseIntText(s as string, 10, pos));
  n.add('parse_int', ['string', 'i64'], ([s, radix], _r, pos) => parseIntText(s as string, Number(radix), pos));
  n.add('parse_float', ['string'], ([s], _r, pos) => parseFloatText(s as string, pos));
  n.add('to_int', ['string'], ([s], _r, pos) => parseIntText(s as string, 10, pos));
  n.add('to_float', ['string'], ([s], _r, pos) => parseFloatText(s as string, pos));

  n.add(
    'range',
    ['i64', 'i64'],
    fresh(([a, b], r, pos) => intRange(r, Number(a), Number(b), 1, pos)),
  );
  n.add(
    'range',
    ['i64', 'i64', 'i64'],
    fresh(([a, b, step], r, pos) => {
      if (step === 0) throw runtimeError('Step of range cannot be zero', pos);
      return intRange(r, Number(a), Number(b), Number(step), pos);
    }),
  );
  n.add('contains', ['range', 'i64'], ([rg, x]) => {
    const g = rg as { start: Int; end: Int; inclusive: boolean };
    const v = x as Int;
    return v >= g.start && (g.inclusive ? v <= g.end : v < g.end);
  });
  n.add('get$start', ['range'], ([rg]) => (rg as { start: Int }).start);
  n.add('get$end', ['range'], ([rg]) => (rg as { end: Int }).end);
  n.add('get$is_inclusive', ['range'], ([rg]) => (rg as { inclusive: boolean }).inclusive);
  n.add('get$is_exclusive', ['range'], ([rg]) => !(rg as { inclusive: boolean }).inclusive);
  n.add('is_empty', ['range'], ([rg]) => {
    const g = rg as { start: Int; end: Int; inclusive: boolean };
    return g.inclusive ? g.start > g.end : g.start >= g.end;
  });
  n.add('len', ['range'], ([rg]) => {
    const g = rg as { start: Int; end: Int; inclusive: boolean };
    const len = Number(g.end) - Number(g.start) + (g.inclusive ? 1 : 0);
    return Math.max(len, 0);
  });
}

/** `range(from, to, step)`: the values an exclusive stepped range would yield. */
function intRange(r: Run, a: number, b: number, step: number, pos: Pos): Value[] {
  r.checkAlloc('array', Math.max(0, Math.ceil((b - a) / step)), pos);
  const out: Value[] = [];
  if (step > 0) for (let i = a; i < b; i += step) out.push(i);
  else for (let i = a; i > b; i += step) out.push(i);
  return out;
}

/**
 * JS ⇄ Rhai value conversion (the rule is documented in index.ts).
 */
import { RhaiError, runtimeError, type Pos } from './errors.js';
import { FnPtr, RChar, RFloat, RRange, RTimestamp, formatFloat, normBig, sortedKeys, type Callable, type RMap, type Slot, type Value } from './values.js';
import { errorText } from '../../model/index.js';

/** A host function; receives JS values, returns a JS value. */
// biome-ignore lint/suspicious/noExplicitAny: a host function of any parameter types must fit (unknown[] would reject them).
export type HostFunction = (...args: any[]) => unknown;

export function fromJs(x: unknown): Value {
  switch (typeof x) {
    case 'undefined':
      return undefined;
    case 'boolean':
    case 'string':
      return x;
    case 'number':
      if (Number.isInteger(x)) {
        if (Number.isSafeInteger(x)) return x === 0 ? 0 : x;
        const n = normBig(BigInt(x));
        if (n !== undefined) return n;
      }
      return new RFloat(x);
    case 'bigint': {
      const n = normBig(x);
      if (n === undefined) throw runtimeError(`Integer overflow: ${x} does not fit in i64`);
      return n;
    }
    case 'function':
      return new FnPtr(x.name || 'native', [], new HostCallable(x as HostFunction));
    case 'symbol':
      return x.toString();
  }
  if (x === null) return undefined;
  if (Array.isArray(x)) return x.map(fromJs);
  if (x instanceof Map) {
    const m: RMap = new Map();
    for (const [k, v] of x) m.set(String(k), fromJs(v));
    return m;
  }
  if (isPlainObject(x as object)) {
    const m: RMap = new Map();
    for (const k of Object.keys(x as object)) m.set(k, fromJs((x as Record<string, unknown>)[k]));
    return m;
  }
  // Class instances (host types, our own FnPtr/RRange/...) pass through untouched.
  return x as Value;
}

export function toJs(v: Value): unknown {
  switch (typeof v) {
    case 'undefined':
      return null;
    case 'boolean':
    case 'number':
    case 'bigint':
    case 'string':
      return v;
  }
  if (v instanceof RFloat) return v.v;
  if (v instanceof RChar) return v.c;
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const k of sortedKeys(v)) o[k] = toJs(v.get(k));
    return o;
  }
  return v;
}

function isPlainObject(x: object): boolean {
  const p = Object.getPrototypeOf(x);
  return p === Object.prototype || p === null;
}

/** Serialises a value as JSON; maps in key order as Rhai's sorted maps do; `()` → null. */
export function toJson(v: Value, pos?: Pos): string {
  switch (typeof v) {
    case 'undefined':
      return 'null';
    case 'boolean':
    case 'number':
    case 'bigint':
      return String(v);
    case 'string':
      return JSON.stringify(v);
  }
  if (v instanceof RFloat) {
    if (!Number.isFinite(v.v)) return 'null';
    // Keep the float-ness visible the way serde_json does ("1.0"), but stay valid JSON.
    return Number.isInteger(v.v) && Math.abs(v.v) < 1e16 ? formatFloat(v.v) : String(v.v);
  }
  if (v instanceof RChar) return JSON.stringify(v.c);
  if (Array.isArray(v)) return '[' + v.map((x) => toJson(x, pos)).join(',') + ']';
  if (v instanceof Map)
    return (
      '{'
      + sortedKeys(v)
        .map((k) => JSON.stringify(k) + ':' + toJson(v.get(k), pos))
        .join(',')
      + '}'
    );
  if (v instanceof FnPtr) return JSON.stringify(`Fn(${v.name})`);
  if (v instanceof RRange) return JSON.stringify(`${v.start}..${v.inclusive ? '=' : ''}${v.end}`);
  if (v instanceof RTimestamp) return 'null';
  const custom = v as { toJSON?: () => unknown };
  if (typeof custom.toJSON === 'function') return JSON.stringify(custom.toJSON());
  throw runtimeError(`Cannot serialize a value of type ${(v as object).constructor?.name ?? 'object'} to JSON`, pos);
}

/** Wraps a JS function so scripts can call it through a function pointer or a map property. */
export class HostCallable implements Callable {
  readonly arity = -1;
  constructor(private readonly fn: HostFunction) {}
  invoke(_run: unknown, args: Value[], _self: Slot | undefined, pos: Pos): Value {
    try {
      return fromJs(this.fn(...args.map(toJs)));
    } catch (e) {
      throw hostError(e, pos);
    }
  }
}

/** Turns an exception thrown by host code into a catchable Rhai runtime error. */
export function hostError(e: unknown, pos: Pos): RhaiError {
  if (e instanceof RhaiError) return e.at(pos);
  return runtimeError(errorText(e), pos);
}

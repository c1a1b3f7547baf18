/**
 * Native (JS-implemented) functions, overloaded by arity and argument types the way Rhai dispatches
 * registered functions. Operators `in`, getters (`get$x`) and indexers use the same table.
 */
import type { Pos } from './errors.js';
import { FnPtr, RChar, RFloat, RRange, RTimestamp, isInt, typeName, type Value } from './values.js';

/** `R` is the caller's run state (runtime.ts binds it to `Run`), so this table does not import its user. */
export type NativeFn<R> = (args: Value[], run: R, pos: Pos) => Value;

/**
 * Parameter type tags: Rhai type names (`i64`, `f64`, `string`, `char`, `bool`, `array`, `map`, `Fn`,
 * `timestamp`, `()`, or a host type's constructor name), plus `num` (i64 or f64), `text` (string or
 * char), `range` (either range kind) and `any`.
 */
export type TypeTag = string;

export interface Overload<R> {
  /** Parameter types; with `variadic`, extra arguments are unchecked. */
  types: TypeTag[];
  variadic: boolean;
  fn: NativeFn<R>;
}

export function fits(tag: TypeTag, v: Value): boolean {
  switch (tag) {
    case 'any':
      return true;
    case 'i64':
      return isInt(v);
    case 'f64':
      return v instanceof RFloat;
    case 'num':
      return isInt(v) || v instanceof RFloat;
    case 'string':
      return typeof v === 'string';
    case 'char':
      return v instanceof RChar;
    case 'text':
      return typeof v === 'string' || v instanceof RChar;
    case 'bool':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'map':
      return v instanceof Map;
    case 'Fn':
      return v instanceof FnPtr;
    case 'range':
      return v instanceof RRange;
    case 'timestamp':
      return v instanceof RTimestamp;
    case '()':
      return v === undefined;
    default:
      return typeName(v) === tag;
  }
}

export function matches<R>(ov: Overload<R>, args: Value[]): boolean {
  const n = ov.types.length;
  if (ov.variadic ? args.length < n : args.length !== n) return false;
  for (let i = 0; i < n; i++) if (!fits(ov.types[i], args[i])) return false;
  return true;
}

export class NativeRegistry<R> {
  private readonly table = new Map<string, Overload<R>[]>();
  /** Bumped on every registration, so call-site caches notice late host registrations. */
  version = 0;

  /** Adds an overload; `first` puts it ahead of existing ones (host functions override the stdlib). */
  add(name: string, types: TypeTag[], fn: NativeFn<R>, opts: { variadic?: boolean; first?: boolean } = {}): void {
    let list = this.table.get(name);
    if (!list) this.table.set(name, (list = []));
    const ov: Overload<R> = { types, variadic: opts.variadic ?? false, fn };
    this.version++;
    if (opts.first) list.unshift(ov);
    else list.push(ov);
  }

  has(name: string): boolean {
    return this.table.has(name);
  }

  resolve(name: string, args: Value[]): Overload<R> | undefined {
    const list = this.table.get(name);
    if (!list) return undefined;
    for (const ov of list) if (matches(ov, args)) return ov;
    return undefined;
  }

  /** A registry that sees this one's entries and can be extended without changing it. */
  fork(): NativeRegistry<R> {
    const r = new NativeRegistry<R>();
    for (const [k, v] of this.table) r.table.set(k, [...v]);
    return r;
  }
}

/** Rhai-style signature for "Function not found" messages, e.g. `foo (i64, string)`. */
export function signature(name: string, args: Value[]): string {
  return `${name} (${args.map(typeName).join(', ')})`;
}

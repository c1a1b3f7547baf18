/**
 * Core functions: type inspection, printing, function pointers, JSON, timestamps.
 */
import { toJson } from './convert.js';
import { runtimeError } from './errors.js';
import type { NativeRegistry } from './natives.js';
import type { Run } from './runtime.js';
import { FnPtr, RFloat, RTimestamp, debug, display, isInt, typeName, type Value } from './values.js';
import { parseJson } from './stdlib-json.js';
import { fresh, freshDeep } from './memory.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Calls a callback with (item) or (item, index), depending on how many parameters it takes. */
export function callback(r: Run, fp: FnPtr, item: Value, index: number, pos: { line: number; col: number }): Value {
  const wanted = callbackArity(r, fp);
  return r.callPtr(fp, wanted === 2 ? [item, index] : [item], pos);
}

function callbackArity(r: Run, fp: FnPtr): number {
  if (fp.target && fp.target.arity >= 0) return fp.target.arity - fp.curried.length;
  const n = fp.curried.length;
  if (r.prog.fns.has(`${fp.name}/${n + 2}`) && !r.prog.fns.has(`${fp.name}/${n + 1}`)) return 2;
  return 1;
}

export function registerCore(n: NativeRegistry<Run>): void {
  n.add('type_of', ['any'], ([v]) => typeName(v));
  const is: [string, (v: Value) => boolean][] = [
    ['is_int', isInt],
    ['is_float', (v) => v instanceof RFloat],
    ['is_string', (v) => typeof v === 'string'],
    ['is_char', (v) => typeName(v) === 'char'],
    ['is_bool', (v) => typeof v === 'boolean'],
    ['is_array', Array.isArray],
    ['is_map', (v) => v instanceof Map],
    ['is_unit', (v) => v === undefined],
    ['is_fn', (v) => v instanceof FnPtr],
    ['is_timestamp', (v) => v instanceof RTimestamp],
  ];
  for (const [name, f] of is) n.add(name, ['any'], ([v]) => f(v));

  n.add('print', ['any'], ([v], r) => (r.prog.output.print(display(v)), undefined));
  n.add('print', [], (_a, r) => (r.prog.output.print(''), undefined));
  n.add('debug', ['any'], ([v], r, pos) => (r.prog.output.debug(debug(v), pos), undefined));
  n.add(
    'to_string',
    ['any'],
    fresh(([v]) => display(v)),
  );
  n.add(
    'to_debug',
    ['any'],
    fresh(([v]) => debug(v)),
  );

  n.add('Fn', ['string'], ([name], _r, pos) => {
    if (!IDENT.test(name as string)) throw runtimeError(`Function name is not valid: ${name as string}`, pos);
    return new FnPtr(name as string);
  });
  n.add('call', ['Fn'], ([fp, ...args], r, pos) => r.callPtr(fp as FnPtr, args, pos), { variadic: true });
  n.add(
    'curry',
    ['Fn'],
    ([fp, ...args]) => {
      const f = fp as FnPtr;
      return new FnPtr(f.name, [...f.curried, ...args], f.target);
    },
    { variadic: true },
  );
  n.add('get$name', ['Fn'], ([fp]) => (fp as FnPtr).name);
  n.add('get$is_anonymous', ['Fn'], ([fp]) => (fp as FnPtr).isAnonymous);
  n.add('is_def_fn', ['string', 'i64'], ([name, arity], r) => r.prog.fns.has(`${name as string}/${arity as number}`));
  n.add('eval', ['string'], (_a, _r, pos) => {
    throw runtimeError('eval is not supported by this engine', pos);
  });

  n.add(
    'parse_json',
    ['string'],
    freshDeep(([s], r, pos) => r.checkSize(parseJson(s as string, pos), pos)),
  );
  n.add(
    'to_json',
    ['any'],
    fresh(([v], _r, pos) => toJson(v, pos)),
  );

  n.add('timestamp', [], () => new RTimestamp(performance.now()));
  const elapsed = ([t]: Value[]): Value => new RFloat((performance.now() - (t as RTimestamp).t) / 1000);
  n.add('elapsed', ['timestamp'], elapsed);
  n.add('get$elapsed', ['timestamp'], elapsed);
  n.add('-', ['timestamp', 'timestamp'], ([a, b]) => new RFloat(((a as RTimestamp).t - (b as RTimestamp).t) / 1000));
}

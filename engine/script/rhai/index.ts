/**
 * A Rhai interpreter (Rhai Book, language version 1.x) for `_svc.script` (docs/scripts.md).
 *
 * Scripts are parsed once into an AST and compiled into JS closures; a compiled `RhaiProgram` is
 * immutable and can be run any number of times, including re-entrantly: each run gets its own
 * state (operations, deadline, call depth).
 *
 * ```ts
 * const engine = new RhaiEngine({ limits: { maxOperations: 1_000_000 }, print: (s) => log.info(s) });
 * engine.registerFunction('http', (status, body) => new HttpResult(status, body));
 * engine.registerMethod('HttpResult', 'header', (self, name, value) => self.header(name, value));
 * const program = engine.compile(source);              // throws RhaiError (kind 'parse')
 * program.hasFunction('respond', 1)
 *   ? program.call('respond', [ctx], { deadlineMs: 50 })
 *   : program.run({ scope: { ctx }, deadlineMs: 50 });   // throws RhaiError / RhaiTimeoutError
 * ```
 *
 * JS ⇄ Rhai values:
 * - `null`/`undefined` → `()`, and `()` → `null`.
 * - booleans and strings map to themselves; a Rhai `char` comes out as a one-character string.
 * - A JS number that is an integer becomes an `i64` (so `1.0` arrives as the integer 1); any other
 *   number becomes an `f64`. A `bigint` becomes an `i64` (error if outside the i64 range).
 *   Out of Rhai, an `i64` is a `number` when it is a safe integer (|n| ≤ 2^53−1), else a `bigint`;
 *   an `f64` is a `number`.
 * - Arrays ↔ arrays (recursively). Plain objects and `Map`s → object maps; object maps → plain objects
 *   with keys in sorted order (Rhai maps are ordered by key).
 * - A JS function (top level or inside an object) becomes a function pointer; called from a map
 *   property it works as a method: `ctx.state.get("k")`.
 * - Any other object (a host class instance) passes through unchanged in both directions; its Rhai
 *   type name is its constructor name, which is what `registerMethod` matches on.
 * - Function pointers, ranges and timestamps come out as opaque objects.
 *
 * `run`/`call` return JS values; `runRaw`/`callRaw` return the Rhai value itself, for `formatDebug`
 * (Rhai's debug form, which keeps `1` and `1.0` apart) or `formatJson` (JSON text; floats keep a
 * fraction, maps in key order).
 *
 * Limits (`EngineOptions.limits`, 0 = unlimited): `maxOperations` (loop iterations + function calls
 * per run; exceeding it is a RhaiTimeoutError), `maxCallDepth` (default 64), `maxStringSize`,
 * `maxArraySize`, `maxMapSize`, `maxMemoryBytes` (default 64 MiB: bytes a run allocates, counted as
 * values are created or grow, see memory.ts; past it a 'limit' error). The wall-clock deadline is
 * per call (`RunOptions.deadlineMs`) and is checked every 256 operations, so even `loop {}` stops
 * within microseconds of it.
 *
 * Errors: `RhaiError` has `kind` ('parse' | 'runtime' | 'throw' | 'limit' | 'timeout'), `line`, `column`,
 * `description` (message without position) and a Rhai-style `message` ending in
 * "(line L, position C)". `RhaiTimeoutError` (a subclass) signals the deadline or the operation budget.
 * Only 'runtime' and 'throw' errors can be caught by a script's `try … catch`.
 *
 * Not supported: `import`/`export`/modules and `eval` (clear errors), custom syntax, decimals, blobs.
 */
export { RhaiEngine, RhaiProgram, type EngineOptions, type RunOptions, type RhaiValue } from './engine.js';
export { RhaiError, RhaiTimeoutError, type RhaiErrorKind, type Pos } from './errors.js';
export type { Limits } from './runtime.js';
export type { HostFunction } from './convert.js';

import { RhaiEngine, type EngineOptions, type RhaiProgram, type RhaiValue } from './engine.js';
import { toJson } from './convert.js';
import { debug } from './values.js';

/** Rhai's debug form of a value, e.g. `42`, `42.0`, `"s"`, `'c'`, `[1, 2]`, `#{"a": 1}`, `()`. */
export function formatDebug(value: RhaiValue): string {
  return debug(value);
}

/** JSON text of a Rhai value: floats keep a fraction (`1.0`), maps in key order, `()` → null. */
export function formatJson(value: RhaiValue): string {
  return toJson(value);
}

/** Compiles a script with a fresh engine (standard library only). */
export function compileRhai(source: string, options: EngineOptions = {}): RhaiProgram {
  return new RhaiEngine(options).compile(source);
}

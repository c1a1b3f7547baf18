/**
 * RhaiEngine (host registrations, limits, output) and RhaiProgram (a compiled script, runnable many
 * times).
 */
import { compileProgram, type CompiledProgram } from './compiler.js';
import { fromJs, hostError, toJs, type HostFunction } from './convert.js';
import { RhaiError, limitError, parseError, runtimeError, NO_POS, type Pos } from './errors.js';
import type { NativeRegistry } from './natives.js';
import { parse } from './parser.js';
import { CTL_RETURN, DEFAULT_LIMITS, Run, type Limits, type Output } from './runtime.js';
import { standardLibrary } from './stdlib.js';
import type { RMap, Value } from './values.js';

/** A Rhai value as the interpreter holds it; opaque outside this module (see formatDebug/formatJson). */
export type RhaiValue = Value;

export interface EngineOptions {
  limits?: Partial<Limits>;
  /** Receives `print(...)` output. Default: discarded. */
  print?: (text: string) => void;
  /** Receives `debug(...)` output with the call position. Default: discarded. */
  debug?: (text: string, pos: Pos) => void;
}

export interface RunOptions {
  /** Variables visible to top-level code (converted from JS, see index.ts). */
  scope?: Record<string, unknown>;
  /** Wall-clock budget in milliseconds from the start of this call; past it a RhaiTimeoutError is thrown. */
  deadlineMs?: number;
}

export class RhaiEngine {
  readonly limits: Limits;
  private readonly natives: NativeRegistry<Run> = standardLibrary();
  private readonly output: Output;

  constructor(opts: EngineOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.output = { print: opts.print ?? (() => {}), debug: opts.debug ?? (() => {}) };
  }

  /**
   * Registers `name(...)` callable from scripts, ahead of any built-in of the same name. The function
   * receives JS values and may return a JS value; throwing raises a catchable Rhai runtime error.
   */
  registerFunction(name: string, fn: HostFunction): this {
    this.natives.add(name, [], hostNative(fn), { variadic: true, first: true });
    return this;
  }

  /**
   * Registers `value.name(...)` for values of `typeName` (a Rhai type name such as `map` or `string`,
   * or a host class's constructor name). `fn` receives the receiver first; host class instances are
   * passed as-is, so they can be mutated and returned for chaining.
   */
  registerMethod(typeName: string, name: string, fn: HostFunction): this {
    this.natives.add(name, [typeName], hostNative(fn), { variadic: true, first: true });
    return this;
  }

  compile(source: string): RhaiProgram {
    let code: CompiledProgram;
    try {
      code = compileProgram(parse(source));
    } catch (e) {
      if (e instanceof RangeError) throw parseError('Expression nested too deeply', NO_POS);
      throw e;
    }
    return new RhaiProgram(code, { fns: code.fns, natives: this.natives, limits: this.limits, output: this.output });
  }
}

/** Adapts a JS function to the native calling convention; toJs leaves host class instances as they are. */
function hostNative(fn: HostFunction) {
  return (args: Value[], _r: Run, pos: Pos): Value => {
    try {
      return fromJs(fn(...args.map(toJs)));
    } catch (e) {
      throw hostError(e, pos);
    }
  };
}

export class RhaiProgram {
  constructor(
    private readonly code: CompiledProgram,
    private readonly linked: ConstructorParameters<typeof Run>[0],
  ) {}

  /** Runs the top-level statements; returns the value of the last one (or of `return`) as JS. */
  run(opts: RunOptions = {}): unknown {
    return toJs(this.runRaw(opts));
  }

  /** Calls a script function by name with JS arguments; top-level statements are not run. */
  call(name: string, args: unknown[] = [], opts: RunOptions = {}): unknown {
    return toJs(this.callRaw(name, args, opts));
  }

  /** Like run(), but returns the Rhai value itself (for formatDebug / formatJson). */
  runRaw(opts: RunOptions = {}): RhaiValue {
    const r = this.newRun(opts);
    return guard(() => {
      const v = this.code.main(new Array<Value>(this.code.nslots), r);
      return r.ctl === CTL_RETURN ? r.cv : v;
    });
  }

  /** Like call(), but returns the Rhai value itself. */
  callRaw(name: string, args: unknown[] = [], opts: RunOptions = {}): RhaiValue {
    const f = this.code.fns.get(`${name}/${args.length}`);
    if (!f) throw runtimeError(`Function not found: ${name} with ${args.length} parameter${args.length === 1 ? '' : 's'}`);
    const r = this.newRun(opts);
    return guard(() => r.callScript(f, args.map(fromJs), NO_POS));
  }

  hasFunction(name: string, arity?: number): boolean {
    if (arity !== undefined) return this.code.fns.has(`${name}/${arity}`);
    return [...this.code.fns.values()].some((f) => f.name === name);
  }

  private newRun(opts: RunOptions): Run {
    const scope: RMap = new Map();
    for (const [k, v] of Object.entries(opts.scope ?? {})) scope.set(k, fromJs(v));
    const ms = opts.deadlineMs;
    const deadline = ms === undefined ? Infinity : performance.now() + ms;
    return new Run(this.linked, scope, deadline, ms ?? 0);
  }
}

/** Turns a JS stack overflow (deep recursion in compiled code) into Rhai's "Stack overflow". */
function guard(f: () => Value): Value {
  try {
    return f();
  } catch (e) {
    if (e instanceof RhaiError) throw e;
    if (e instanceof RangeError && /call stack/.test(e.message)) throw limitError('Stack overflow');
    throw e;
  }
}

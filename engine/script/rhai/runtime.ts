/**
 * Evaluation state of one run (operation count, deadline, call depth, pending break/continue/return)
 * and the call machinery shared by compiled code and natives. A program can run many times, even
 * concurrently from re-entrant host calls: all mutable state lives here, one Run per call.
 */
import type { VarInfo } from './ast.js';
import { RhaiTimeoutError, limitError, runtimeError, type Pos } from './errors.js';
import { SLOT_BYTES } from './memory.js';
import { matches, signature, type NativeRegistry, type Overload } from './natives.js';
import { FnPtr, strLen, type Callable, type RMap, type Slot, type Value } from './values.js';

/** Compiled code: evaluates against a frame of slots. */
export type Code = (s: Value[], r: Run) => Value;

/** A shared variable cell, used for variables captured by closures. */
export class Cell {
  constructor(public v: Value) {}
}

export const CTL_BREAK = 1;
export const CTL_CONTINUE = 2;
export const CTL_RETURN = 3;

/** Marker for "no `this` write-back pending". */
export const NO_OUT: Value = Object.freeze({ noOut: true });

export interface Limits {
  /** Operations (loop iterations + function calls) per run; 0 = unlimited. */
  maxOperations: number;
  /** Nested script function calls. */
  maxCallDepth: number;
  /** Characters in a string; 0 = unlimited. */
  maxStringSize: number;
  /** Elements in an array; 0 = unlimited. */
  maxArraySize: number;
  /** Properties in an object map; 0 = unlimited. */
  maxMapSize: number;
  /**
   * Bytes a run may allocate (strings, arrays, maps, counted as they are created or grow; memory.ts
   * says how), cumulative over the run; 0 = unlimited. Past it the run fails with a limit error.
   */
  maxMemoryBytes: number;
}

/** The default allocation budget of a run: a bomb stops here, far below what would strain the process. */
export const DEFAULT_MEMORY_BYTES = 64 * 1024 * 1024;

export const DEFAULT_LIMITS: Limits = {
  maxOperations: 0,
  maxCallDepth: 64,
  maxStringSize: 0,
  maxArraySize: 0,
  maxMapSize: 0,
  maxMemoryBytes: DEFAULT_MEMORY_BYTES,
};

export interface Output {
  print(text: string): void;
  debug(text: string, pos: Pos): void;
}

export class CompiledFn {
  body!: Code;
  nslots = 0;
  thisSlot = -1;
  constructor(
    readonly name: string,
    readonly params: VarInfo[],
  ) {}
}

/** A compiled `x.name(...)` call site. */
export interface MethodSite {
  name: string;
  /** `name/arity` of a script function taking `this` plus the explicit arguments. */
  key: string;
  /** `name/arity` of a script function taking the receiver as first argument. */
  keyWithReceiver: string;
  cached?: Overload<Run>;
  version?: number;
}

/** What a run needs from its program and engine. */
export interface Linked {
  fns: Map<string, CompiledFn>;
  natives: NativeRegistry<Run>;
  limits: Limits;
  output: Output;
}

/** Largest string/array one native call may build when no size limit is configured. */
const SINGLE_ALLOC_CEILING = 1 << 24;

/** Operations between two looks at the clock: keeps `loop {}` interruptible within microseconds. */
const CHECK_EVERY = 256;

export class Run {
  ops = 0;
  nextCheck: number;
  depth = 0;
  ctl = 0;
  cv: Value = undefined;
  thisOut: Value = NO_OUT;
  /** Bytes charged against the allocation budget so far. */
  allocated = 0;
  private readonly maxOps: number;
  private readonly maxMemory: number;

  constructor(
    readonly prog: Linked,
    readonly scope: RMap,
    private readonly deadline: number,
    private readonly deadlineMs: number,
  ) {
    this.maxOps = prog.limits.maxOperations > 0 ? prog.limits.maxOperations : Infinity;
    this.maxMemory = prog.limits.maxMemoryBytes > 0 ? prog.limits.maxMemoryBytes : Infinity;
    this.nextCheck = Math.min(CHECK_EVERY, this.maxOps);
  }

  /** Called when `ops` reaches `nextCheck`: enforces the operation budget and the deadline. */
  tick(pos: Pos): void {
    if (this.ops >= this.maxOps) throw new RhaiTimeoutError('Too many operations', pos);
    if (this.deadline !== Infinity && performance.now() >= this.deadline)
      throw new RhaiTimeoutError(`Script terminated: exceeded the ${this.deadlineMs} ms deadline`, pos);
    this.nextCheck = Math.min(this.ops + CHECK_EVERY, this.maxOps);
  }

  /** Runs a script function whose frame (arguments in place) is ready. */
  enter(f: CompiledFn, frame: Value[], pos: Pos): Value {
    if (this.depth >= this.prog.limits.maxCallDepth) throw limitError('Stack overflow', pos);
    if (++this.ops >= this.nextCheck) this.tick(pos);
    this.depth++;
    let v = f.body(frame, this);
    this.depth--;
    if (this.ctl === CTL_RETURN) {
      this.ctl = 0;
      v = this.cv;
      this.cv = undefined;
    }
    return v;
  }

  /** Calls a script function with argument values; `self` binds `this` (method-call style). */
  callScript(f: CompiledFn, args: Value[], pos: Pos, self?: Slot): Value {
    const frame = new Array<Value>(f.nslots);
    const ps = f.params;
    for (let i = 0; i < ps.length; i++) frame[ps[i].slot] = ps[i].boxed ? new Cell(args[i]) : args[i];
    if (f.thisSlot >= 0) frame[f.thisSlot] = self?.get();
    const v = this.enter(f, frame, pos);
    if (self && f.thisSlot >= 0) self.set(frame[f.thisSlot]);
    return v;
  }

  /** Calls a function by name: script functions first, then natives. */
  callNamed(name: string, args: Value[], pos: Pos): Value {
    const f = this.prog.fns.get(name + '/' + args.length);
    if (f) return this.callScript(f, args, pos);
    return this.callNative(name, args, pos);
  }

  /** Calls a native; for call sites already known not to name a script function. */
  callNative(name: string, args: Value[], pos: Pos): Value {
    const ov = this.prog.natives.resolve(name, args);
    if (ov) return ov.fn(args, this, pos);
    throw runtimeError(`Function not found: ${signature(name, args)}`, pos);
  }

  /**
   * `recv.name(args)`, with `all` = [recv, ...args]. A function pointer held in a map property is
   * called with `this` bound to the map; then script functions bind `this` to the receiver; then
   * natives get the receiver as first argument; last, `x.f(a)` may mean script `f(x, a)`.
   * A changed receiver is left in `thisOut` for the call site to write back.
   */
  callMethod(site: MethodSite, all: Value[], pos: Pos): Value {
    const recv = all[0];
    if (recv instanceof Map) {
      const p = recv.get(site.name);
      if (p instanceof FnPtr) return this.callPtr(p, all.slice(1), pos, recv);
    }
    const fns = this.prog.fns;
    const f = fns.size === 0 ? undefined : fns.get(site.key);
    if (f) {
      const run = this;
      return this.callScript(f, all.slice(1), pos, {
        get: () => recv,
        set(v) {
          run.thisOut = v;
        },
      });
    }
    // Per-site cache of the last native overload: most sites always see the same types.
    const natives = this.prog.natives;
    let ov = site.cached;
    if (!ov || site.version !== natives.version || !matches(ov, all)) {
      ov = site.cached = natives.resolve(site.name, all);
      site.version = natives.version;
    }
    if (ov) return ov.fn(all, this, pos);
    const g = fns.get(site.keyWithReceiver);
    if (g) return this.callScript(g, all, pos);
    throw runtimeError(`Function not found: ${signature(site.name, all)}`, pos);
  }

  /** Calls a function pointer, curried arguments first. */
  callPtr(fp: FnPtr, args: Value[], pos: Pos, self?: Value): Value {
    const all = fp.curried.length ? [...fp.curried, ...args] : args;
    const t: Callable | undefined = fp.target;
    if (t) {
      if (t.arity >= 0 && t.arity !== all.length) throw runtimeError(`Function not found: ${signature(fp.name, all)}`, pos);
      const slot: Slot | undefined = self === undefined ? undefined : { get: () => self, set: () => {} };
      return t.invoke(this, all, slot, pos);
    }
    if (self !== undefined) {
      const f = this.prog.fns.get(fp.name + '/' + all.length);
      if (f) return this.callScript(f, all, pos, { get: () => self, set: () => {} });
    }
    return this.callNamed(fp.name, all, pos);
  }

  /** Counts bytes a value just created or grown takes; past the budget the run fails (not catchable). */
  charge(bytes: number, pos: Pos): void {
    if ((this.allocated += bytes) > this.maxMemory) throw limitError(`Script memory budget exceeded: allocated more than ${this.maxMemory} bytes`, pos);
  }

  /**
   * Checks the size a native is about to allocate (`pad`, `range`), before allocating. Without a
   * configured limit a fixed ceiling still applies, since such a call never reaches a deadline check.
   */
  checkAlloc(kind: 'string' | 'array', size: number, pos: Pos): void {
    const max = kind === 'string' ? this.prog.limits.maxStringSize : this.prog.limits.maxArraySize;
    if (size > (max > 0 ? max : SINGLE_ALLOC_CEILING))
      throw limitError(kind === 'string' ? 'Length of string exceeds maximum limit' : 'Size of array exceeds maximum limit', pos);
    // Fail before allocating what the budget could never admit (the growth itself is charged after).
    const bytes = size * (kind === 'string' ? 1 : SLOT_BYTES);
    if (this.allocated + bytes > this.maxMemory) this.charge(bytes, pos);
  }

  checkString(s: string, pos: Pos): string {
    const max = this.prog.limits.maxStringSize;
    if (max > 0 && s.length > max && strLen(s) > max) throw limitError('Length of string exceeds maximum limit', pos);
    return s;
  }

  checkArray(a: Value[], pos: Pos): Value[] {
    const max = this.prog.limits.maxArraySize;
    if (max > 0 && a.length > max) throw limitError('Size of array exceeds maximum limit', pos);
    return a;
  }

  checkMap(m: RMap, pos: Pos): RMap {
    const max = this.prog.limits.maxMapSize;
    if (max > 0 && m.size > max) throw limitError('Size of object map exceeds maximum limit', pos);
    return m;
  }

  /** Size check for any freshly built value (used where the result type is not known statically). */
  checkSize(v: Value, pos: Pos): Value {
    if (typeof v === 'string') this.checkString(v, pos);
    else if (Array.isArray(v)) this.checkArray(v, pos);
    else if (v instanceof Map) this.checkMap(v, pos);
    return v;
  }
}

/** A closure: a compiled function plus the shared cells it captured. */
export class Closure implements Callable {
  readonly arity: number;
  constructor(
    private readonly f: CompiledFn,
    private readonly cells: Cell[],
    private readonly cellSlots: number[],
  ) {
    this.arity = f.params.length;
  }

  invoke(run: unknown, args: Value[], self: Slot | undefined, pos: Pos): Value {
    const r = run as Run;
    const f = this.f;
    const frame = new Array<Value>(f.nslots);
    const ps = f.params;
    for (let i = 0; i < ps.length; i++) frame[ps[i].slot] = ps[i].boxed ? new Cell(args[i]) : args[i];
    for (let i = 0; i < this.cells.length; i++) frame[this.cellSlots[i]] = this.cells[i];
    if (f.thisSlot >= 0) frame[f.thisSlot] = self?.get();
    return r.enter(f, frame, pos);
  }
}

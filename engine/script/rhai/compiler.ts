/**
 * Compiles the AST into nested JS closures `(frame, run) => value`. Variables are frame slots resolved
 * at parse time; break/continue/return travel as a flag on the Run (checked after each statement) so
 * that loops never pay for exceptions.
 */
import { indexGet, indexSet, propGet, propSet } from './access.js';
import type { Expr, FnDef, ProgramAst, SwitchCase, VarInfo } from './ast.js';
import { RhaiError, runtimeError, type Pos } from './errors.js';
import { BINARY_OPS, add, compare, eq, neg, range } from './ops.js';
import { CTL_BREAK, CTL_CONTINUE, CTL_RETURN, Cell, Closure, CompiledFn, NO_OUT, type Code, type MethodSite, type Run } from './runtime.js';
import { toJs } from './convert.js';
import { FnPtr, RChar, RRange, chars, display, isInt, normBig, typeName, type RMap, type Value } from './values.js';
import { ENTRY_BYTES, OBJECT_BYTES, SLOT_BYTES, chargedCopy, concatBytes, shallowBytes } from './memory.js';

const MAX_SAFE = 9007199254740991;

interface Place {
  get: Code;
  set: (s: Value[], r: Run, v: Value) => void;
}

export interface CompiledProgram {
  main: Code;
  nslots: number;
  fns: Map<string, CompiledFn>;
}

/** The Rhai value carried by a `throw`, kept alongside the error for `catch (err)`. */
const thrownValues = new WeakMap<RhaiError, Value>();

export function compileProgram(ast: ProgramAst): CompiledProgram {
  const fns = new Map<string, CompiledFn>();
  for (const d of ast.fns) fns.set(`${d.name}/${d.params.length}`, new CompiledFn(d.name, d.params));
  const c = new Compiler(fns);
  for (const d of ast.fns) c.fillFn(fns.get(`${d.name}/${d.params.length}`)!, d);
  return { main: c.expr(ast.main), nslots: ast.frame.nslots, fns };
}

function typeErr(expected: string, v: Value, pos: Pos): RhaiError {
  return runtimeError(`Data type incorrect: ${typeName(v)} (expecting ${expected})`, pos);
}

function isContainer(v: Value): boolean {
  return Array.isArray(v) || v instanceof Map;
}

/** Result of a chain cut short by `?.` on (); becomes () at the end of the chain. */
const SKIP: Value = Object.freeze({ skip: true });

type ChainExpr = Expr & { k: 'index' | 'prop' | 'method' };

function isChain(e: Expr): e is ChainExpr {
  return e.k === 'index' || e.k === 'prop' || e.k === 'method';
}

function hasSafe(e: Expr): boolean {
  for (let x = e; isChain(x); x = x.obj) if (x.safe) return true;
  return false;
}

function isPlaceExpr(e: Expr): boolean {
  return e.k === 'var' || e.k === 'index' || e.k === 'prop' || e.k === 'this';
}

/** `a + b`, charging what a new string, array or map adds. */
function added(a: Value, b: Value, pos: Pos, r: Run): Value {
  const v = add(a, b, pos, r);
  if (typeof v === 'string') r.charge(concatBytes(a, b, v), pos);
  else if (typeof v === 'object' && v !== a && v !== b) r.charge(shallowBytes(v), pos);
  return v;
}

function bind(info: VarInfo, v: Value): Value {
  return info.boxed ? new Cell(v) : v;
}

/** Applies `cur op= v`; arrays and maps grow in place as Rhai's `+=` does. */
function compound(op: string, cur: Value, v: Value, r: Run, pos: Pos): Value {
  if (op === '+') {
    if (Array.isArray(cur)) {
      if (Array.isArray(v)) for (const x of v) cur.push(x);
      else cur.push(v);
      r.charge(SLOT_BYTES * (Array.isArray(v) ? v.length : 1), pos);
      return r.checkArray(cur, pos);
    }
    if (cur instanceof Map && v instanceof Map) {
      const size = cur.size;
      for (const [k, x] of v) cur.set(k, x);
      r.charge(ENTRY_BYTES * (cur.size - size), pos);
      return r.checkMap(cur, pos);
    }
    if (typeof cur === 'string') return r.checkSize(added(cur, v, pos, r), pos);
  }
  return BINARY_OPS[op](cur, v, pos, r);
}

class Compiler {
  constructor(private readonly fns: Map<string, CompiledFn>) {}

  fillFn(cf: CompiledFn, d: FnDef): void {
    cf.body = this.expr(d.body);
    cf.nslots = d.frame.nslots;
    cf.thisSlot = d.frame.thisInfo?.slot ?? -1;
  }

  /** Compiles an expression whose value will be stored: arrays and maps are copied (value semantics). */
  private stored(e: Expr): Code {
    const c = this.expr(e);
    if (!isPlaceExpr(e)) return c;
    return (s, r) => {
      const v = c(s, r);
      return typeof v === 'object' && isContainer(v) ? chargedCopy(v, r, e.pos) : v;
    };
  }

  expr(e: Expr): Code {
    switch (e.k) {
      case 'lit': {
        const v = e.v;
        return () => v;
      }
      case 'tpl':
        return this.template(e.parts, e.pos);
      case 'var':
        return this.varGet(e.name, e.ref, e.external, e.pos);
      case 'this':
        return this.thisPlace(e.ref, e.pos).get;
      case 'array': {
        const items = e.items.map((x) => this.stored(x));
        const pos = e.pos;
        return (s, r) => {
          const a = new Array<Value>(items.length);
          for (let i = 0; i < items.length; i++) a[i] = items[i](s, r);
          r.charge(shallowBytes(a), pos);
          return r.checkArray(a, pos);
        };
      }
      case 'map': {
        const keys = e.entries.map(([k]) => k);
        const vals = e.entries.map(([, x]) => this.stored(x));
        const pos = e.pos;
        return (s, r) => {
          const m: RMap = new Map();
          for (let i = 0; i < keys.length; i++) m.set(keys[i], vals[i](s, r));
          r.charge(shallowBytes(m), pos);
          return r.checkMap(m, pos);
        };
      }
      case 'unary':
        return this.unary(e.op, this.expr(e.e), e.pos);
      case 'bin':
        return this.binary(e.op, e.l, e.r, e.pos);
      case 'assign':
        return this.assign(e.op, e.target, e.value, e.pos);
      case 'index':
      case 'prop':
      case 'method': {
        const c = this.chainPart(e);
        if (!hasSafe(e)) return c;
        return (s, r) => {
          const v = c(s, r);
          return v === SKIP ? undefined : v;
        };
      }
      case 'call':
        return this.call(e.name, e.args, e.ref, e.pos);
      case 'closure':
        return this.closure(e.fn, e.captures);
      case 'block':
        return this.block(e.body.map((x) => this.expr(x)));
      case 'if':
        return this.ifExpr(e.cond, e.then, e.else, e.pos);
      case 'switch':
        return this.switchExpr(e.subject, e.cases, e.def, e.pos);
      case 'while':
        return this.whileLoop(this.expr(e.cond), this.expr(e.body), false, false, e.pos);
      case 'loop':
        return this.whileLoop(undefined, this.expr(e.body), false, false, e.pos);
      case 'do':
        return this.whileLoop(this.expr(e.cond), this.expr(e.body), true, e.until, e.pos);
      case 'for':
        return this.forLoop(e.v, e.idx, e.iter, this.expr(e.body), e.pos);
      case 'break': {
        const val = e.value ? this.expr(e.value) : undefined;
        return (s, r) => {
          const v = val ? val(s, r) : undefined;
          r.cv = v;
          r.ctl = CTL_BREAK;
          return undefined;
        };
      }
      case 'continue':
        return (_s, r) => {
          r.ctl = CTL_CONTINUE;
          return undefined;
        };
      case 'return': {
        const val = e.value ? this.expr(e.value) : undefined;
        return (s, r) => {
          const v = val ? val(s, r) : undefined;
          if (r.ctl) return undefined;
          r.cv = v;
          r.ctl = CTL_RETURN;
          return undefined;
        };
      }
      case 'throw': {
        const val = e.value ? this.expr(e.value) : undefined;
        const pos = e.pos;
        return (s, r) => {
          const v = val ? val(s, r) : undefined;
          const err = new RhaiError('throw', v === undefined ? 'Runtime error' : display(v), pos);
          err.thrown = toJs(v);
          thrownValues.set(err, v);
          throw err;
        };
      }
      case 'try':
        return this.tryExpr(this.expr(e.body), e.err, this.expr(e.handler));
      case 'let': {
        const init = e.value ? this.stored(e.value) : undefined;
        const { slot, boxed } = e.info;
        if (!init) return (s) => ((s[slot] = boxed ? new Cell(undefined) : undefined), undefined);
        if (boxed) return (s, r) => ((s[slot] = new Cell(init(s, r))), undefined);
        return (s, r) => ((s[slot] = init(s, r)), undefined);
      }
    }
  }

  // -- variables and places ---------------------------------------------------------------------

  private varGet(name: string, ref: VarInfo | undefined, external: boolean, pos: Pos): Code {
    if (ref) {
      const slot = ref.slot;
      return ref.boxed ? (s) => (s[slot] as Cell).v : (s) => s[slot];
    }
    if (external)
      return (_s, r) => {
        const v = r.scope.get(name);
        if (v === undefined && !r.scope.has(name)) throw runtimeError(`Variable not found: ${name}`, pos);
        return v;
      };
    return () => {
      throw runtimeError(`Variable not found: ${name}`, pos);
    };
  }

  private thisPlace(ref: VarInfo | undefined, pos: Pos): Place {
    if (!ref) {
      const fail = (): never => {
        throw runtimeError("'this' is not bound", pos);
      };
      return { get: fail, set: fail };
    }
    const slot = ref.slot;
    return { get: (s) => s[slot], set: (s, _r, v) => void (s[slot] = v) };
  }

  private place(e: Expr): Place {
    switch (e.k) {
      case 'var': {
        const get = this.varGet(e.name, e.ref, e.external, e.pos);
        const { name, ref, pos } = e;
        if (ref) {
          const slot = ref.slot;
          if (ref.constant)
            return {
              get,
              set: () => {
                throw runtimeError(`Cannot modify constant: ${name}`, pos);
              },
            };
          return ref.boxed ? { get, set: (s, _r, v) => void ((s[slot] as Cell).v = v) } : { get, set: (s, _r, v) => void (s[slot] = v) };
        }
        return {
          get,
          set: (_s, r, v) => {
            if (!r.scope.has(name)) throw runtimeError(`Variable not found: ${name}`, pos);
            r.scope.set(name, v);
          },
        };
      }
      case 'this':
        return this.thisPlace(e.ref, e.pos);
      case 'index': {
        const obj = this.place(e.obj);
        const idx = this.expr(e.idx);
        const pos = e.pos;
        return {
          get: (s, r) => indexGet(obj.get(s, r), idx(s, r), r, pos),
          set: (s, r, v) => {
            const o = obj.get(s, r);
            const nv = indexSet(o, idx(s, r), v, r, pos);
            if (nv !== NO_OUT) obj.set(s, r, nv);
          },
        };
      }
      case 'prop': {
        const obj = this.place(e.obj);
        const { name, pos } = e;
        return {
          get: (s, r) => propGet(obj.get(s, r), name, r, pos),
          set: (s, r, v) => propSet(obj.get(s, r), name, v, r, pos),
        };
      }
      default: {
        // A temporary (e.g. a call result) can be read and mutated in place but not reassigned.
        const get = this.expr(e);
        return { get, set: () => {} };
      }
    }
  }

  private assign(op: string, target: Expr, value: Expr, pos: Pos): Code {
    const val = this.stored(value);
    if (target.k === 'var' && target.ref && !target.ref.boxed && !target.ref.constant) {
      const slot = target.ref.slot;
      if (op === '=') return (s, r) => ((s[slot] = val(s, r)), undefined);
      const bop = op.slice(0, -1);
      if (bop === '+')
        return (s, r) => {
          const a = s[slot];
          const b = val(s, r);
          if (typeof a === 'number' && typeof b === 'number') {
            const x = a + b;
            if (x <= MAX_SAFE && x >= -MAX_SAFE) {
              s[slot] = x;
              return undefined;
            }
          }
          s[slot] = compound('+', a, b, r, pos);
          return undefined;
        };
      return (s, r) => ((s[slot] = compound(bop, s[slot], val(s, r), r, pos)), undefined);
    }
    const p = this.place(target);
    if (op === '=') return (s, r) => (p.set(s, r, val(s, r)), undefined);
    const bop = op.slice(0, -1);
    if (target.k === 'index') {
      // Container and index are evaluated once: `a[next()] += 1` calls next() once.
      const obj = this.place(target.obj);
      const idx = this.expr(target.idx);
      const ipos = target.pos;
      return (s, r) => {
        const o = obj.get(s, r);
        const k = idx(s, r);
        const nv = indexSet(o, k, compound(bop, indexGet(o, k, r, ipos), val(s, r), r, pos), r, ipos);
        if (nv !== NO_OUT) obj.set(s, r, nv);
        return undefined;
      };
    }
    return (s, r) => {
      const cur = p.get(s, r);
      p.set(s, r, compound(bop, cur, val(s, r), r, pos));
      return undefined;
    };
  }

  // -- operators --------------------------------------------------------------------------------

  private unary(op: string, e: Code, pos: Pos): Code {
    if (op === '-') return (s, r) => neg(e(s, r), pos);
    if (op === '+')
      return (s, r) => {
        const v = e(s, r);
        if (isInt(v) || typeName(v) === 'f64') return v;
        throw runtimeError(`Function not found: + (${typeName(v)})`, pos);
      };
    return (s, r) => {
      const v = e(s, r);
      if (typeof v !== 'boolean') throw runtimeError(`Function not found: ! (${typeName(v)})`, pos);
      return !v;
    };
  }

  private binary(op: string, le: Expr, re: Expr, pos: Pos): Code {
    const l = this.expr(le);
    const r_ = this.expr(re);
    switch (op) {
      case '&&':
        return (s, r) => {
          const a = l(s, r);
          if (typeof a !== 'boolean') throw typeErr('bool', a, pos);
          if (!a) return false;
          const b = r_(s, r);
          if (typeof b !== 'boolean') throw typeErr('bool', b, pos);
          return b;
        };
      case '||':
        return (s, r) => {
          const a = l(s, r);
          if (typeof a !== 'boolean') throw typeErr('bool', a, pos);
          if (a) return true;
          const b = r_(s, r);
          if (typeof b !== 'boolean') throw typeErr('bool', b, pos);
          return b;
        };
      case '??':
        return (s, r) => {
          const a = l(s, r);
          return a === undefined ? r_(s, r) : a;
        };
      case '==':
        return (s, r) => {
          const a = l(s, r);
          const b = r_(s, r);
          return a === b || eq(a, b);
        };
      case '!=':
        return (s, r) => {
          const a = l(s, r);
          const b = r_(s, r);
          return !(a === b || eq(a, b));
        };
      case '<':
        return (s, r) => {
          const a = l(s, r);
          const b = r_(s, r);
          return typeof a === 'number' && typeof b === 'number' ? a < b : compare(op, a, b, pos);
        };
      case '<=':
        return (s, r) => {
          const a = l(s, r);
          const b = r_(s, r);
          return typeof a === 'number' && typeof b === 'number' ? a <= b : compare(op, a, b, pos);
        };
      case '>':
        return (s, r) => {
          const a = l(s, r);
          const b = r_(s, r);
          return typeof a === 'number' && typeof b === 'number' ? a > b : compare(op, a, b, pos);
        };
      case '>=':
        return (s, r) => {
          const a = l(s, r);
          const b = r_(s, r);
          return typeof a === 'number' && typeof b === 'number' ? a >= b : compare(op, a, b, pos);
        };
      case 'in':
      case '!in': {
        const negate = op === '!in';
        return (s, r) => {
          const a = l(s, r);
          const b = r_(s, r);
          const v = r.callNamed('contains', [b, a], pos);
          if (typeof v !== 'boolean') throw typeErr('bool', v, pos);
          return negate ? !v : v;
        };
      }
      case '..':
      case '..=': {
        const inclusive = op === '..=';
        return (s, r) => range(l(s, r), r_(s, r), inclusive, pos);
      }
      case '+':
        return (s, r) => {
          const a = l(s, r);
          const b = r_(s, r);
          if (typeof a === 'number' && typeof b === 'number') {
            const x = a + b;
            if (x <= MAX_SAFE && x >= -MAX_SAFE) return x;
          }
          return r.checkSize(added(a, b, pos, r), pos);
        };
      case '-':
        return (s, r) => {
          const a = l(s, r);
          const b = r_(s, r);
          if (typeof a === 'number' && typeof b === 'number') {
            const x = a - b;
            if (x <= MAX_SAFE && x >= -MAX_SAFE) return x;
          }
          return BINARY_OPS['-'](a, b, pos, r);
        };
    }
    const f = BINARY_OPS[op];
    return (s, r) => f(l(s, r), r_(s, r), pos, r);
  }

  private template(parts: (string | Expr)[], pos: Pos): Code {
    const codes = parts.map((p) => (typeof p === 'string' ? p : this.expr(p)));
    return (s, r) => {
      let out = '';
      let longest = 0;
      for (const c of codes) {
        const part = typeof c === 'string' ? c : display(c(s, r));
        if (part.length > longest) longest = part.length;
        out += part;
      }
      // The longest part is shared with the result (a rope), the rest is new.
      r.charge(OBJECT_BYTES + out.length - longest, pos);
      return r.checkString(out, pos);
    };
  }

  // -- calls ------------------------------------------------------------------------------------

  private args(args: Expr[]): (s: Value[], r: Run) => Value[] {
    const codes = args.map((a) => this.stored(a));
    const n = codes.length;
    if (n === 0) return () => [];
    if (n === 1) {
      const [a] = codes;
      return (s, r) => [a(s, r)];
    }
    return (s, r) => {
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = codes[i](s, r);
      return out;
    };
  }

  private call(name: string, argExprs: Expr[], ref: VarInfo | undefined, pos: Pos): Code {
    const f = this.fns.get(`${name}/${argExprs.length}`);
    if (f) {
      // Arguments go straight into the callee's frame.
      const codes = argExprs.map((a) => this.stored(a));
      return (s, r) => {
        const frame = new Array<Value>(f.nslots);
        const ps = f.params;
        for (let i = 0; i < codes.length; i++) {
          const v = codes[i](s, r);
          frame[ps[i].slot] = ps[i].boxed ? new Cell(v) : v;
        }
        return r.enter(f, frame, pos);
      };
    }
    const args = this.args(argExprs);
    if (ref) {
      const get = this.varGet(name, ref, false, pos);
      return (s, r) => {
        const fp = get(s, r);
        if (!(fp instanceof FnPtr)) throw runtimeError(`Function not found: ${name} (variable '${name}' is a ${typeName(fp)}, not a function pointer)`, pos);
        return r.callPtr(fp, args(s, r), pos);
      };
    }
    // Script functions are all known at compile time, so this name can only be a native.
    return (s, r) => r.callNative(name, args(s, r), pos);
  }

  /** One link of a `.`/`?.`/`[]` chain; SKIP propagates a `?.` short-circuit through the rest. */
  private chainPart(e: ChainExpr): Code {
    const obj = isChain(e.obj) ? this.chainPart(e.obj) : this.expr(e.obj);
    const { safe, pos } = e;
    switch (e.k) {
      case 'index': {
        const idx = this.expr(e.idx);
        return (s, r) => {
          const o = obj(s, r);
          if (o === SKIP || (safe && o === undefined)) return SKIP;
          return indexGet(o, idx(s, r), r, pos);
        };
      }
      case 'prop': {
        const name = e.name;
        return (s, r) => {
          const o = obj(s, r);
          if (o === SKIP || (safe && o === undefined)) return SKIP;
          return propGet(o, name, r, pos);
        };
      }
      case 'method':
        return this.method(e, obj);
    }
  }

  private method(e: ChainExpr & { k: 'method' }, chainObj: Code): Code {
    const { name, safe, pos } = e;
    const codes = e.args.map((a) => this.stored(a));
    const n = codes.length;
    const site: MethodSite = { name, key: `${name}/${n}`, keyWithReceiver: `${name}/${n + 1}` };
    // A receiver that is a variable/property/element gets changes written back (`s.trim()`).
    const p = isPlaceExpr(e.obj) && !hasSafe(e.obj) ? this.place(e.obj) : undefined;
    const recvGet = p ? p.get : chainObj;
    return (s, r) => {
      const recv = recvGet(s, r);
      if (recv === SKIP || (safe && recv === undefined)) return SKIP;
      const all = new Array<Value>(n + 1);
      all[0] = recv;
      for (let i = 0; i < n; i++) all[i + 1] = codes[i](s, r);
      r.thisOut = NO_OUT;
      const res = r.callMethod(site, all, pos);
      if (r.thisOut !== NO_OUT) {
        const nv = r.thisOut;
        r.thisOut = NO_OUT;
        if (p && nv !== recv) p.set(s, r, nv);
      }
      return res;
    };
  }

  private closure(def: FnDef, captures: { from: VarInfo; to: VarInfo }[]): Code {
    const cf = new CompiledFn(def.name, def.params);
    this.fillFn(cf, def);
    const from = captures.map((c) => c.from.slot);
    const to = captures.map((c) => c.to.slot);
    const name = def.name;
    return (s) => {
      const cells = from.map((slot) => s[slot] as Cell);
      return new FnPtr(name, [], new Closure(cf, cells, to));
    };
  }

  // -- control flow -----------------------------------------------------------------------------

  private block(stmts: Code[]): Code {
    const n = stmts.length;
    if (n === 0) return () => undefined;
    if (n === 1) return stmts[0];
    if (n === 2) {
      const [a, b] = stmts;
      return (s, r) => {
        const v = a(s, r);
        if (r.ctl) return v;
        return b(s, r);
      };
    }
    return (s, r) => {
      let v: Value;
      for (let i = 0; i < n; i++) {
        v = stmts[i](s, r);
        if (r.ctl) return v;
      }
      return v;
    };
  }

  private ifExpr(condE: Expr, thenE: Expr, elseE: Expr | undefined, pos: Pos): Code {
    const cond = this.expr(condE);
    const then = this.expr(thenE);
    const els = elseE ? this.expr(elseE) : undefined;
    return (s, r) => {
      const c = cond(s, r);
      if (c === true) return then(s, r);
      if (c !== false) throw typeErr('bool', c, condE.pos ?? pos);
      return els ? els(s, r) : undefined;
    };
  }

  private switchExpr(subjectE: Expr, cases: SwitchCase[], defE: Expr | undefined, pos: Pos): Code {
    const subject = this.expr(subjectE);
    const compiled = cases.map((c) => ({
      values: c.patterns.map((p) => constValue(p, pos)),
      cond: c.cond ? this.expr(c.cond) : undefined,
      body: this.expr(c.body),
    }));
    const def = defE ? this.expr(defE) : undefined;
    return (s, r) => {
      const v = subject(s, r);
      for (const c of compiled) {
        let hit = false;
        for (const p of c.values) {
          if (p instanceof RRange && isInt(v) ? inRange(p, v) : v === p || eq(v, p)) {
            hit = true;
            break;
          }
        }
        if (!hit) continue;
        if (c.cond) {
          const ok = c.cond(s, r);
          if (typeof ok !== 'boolean') throw typeErr('bool', ok, pos);
          if (!ok) continue;
        }
        return c.body(s, r);
      }
      return def ? def(s, r) : undefined;
    };
  }

  /** while / loop / do-while / do-until. Returns the `break` value, else (). */
  private whileLoop(cond: Code | undefined, body: Code, postTest: boolean, until: boolean, pos: Pos): Code {
    return (s, r) => {
      for (;;) {
        if (cond && !postTest && !truth(cond(s, r), pos)) return undefined;
        body(s, r);
        if (r.ctl) {
          if (r.ctl === CTL_BREAK) {
            r.ctl = 0;
            const v = r.cv;
            r.cv = undefined;
            return v;
          }
          if (r.ctl !== CTL_CONTINUE) return undefined;
          r.ctl = 0;
        }
        if (++r.ops >= r.nextCheck) r.tick(pos);
        if (cond && postTest && truth(cond(s, r), pos) === until) return undefined;
      }
    };
  }

  private forLoop(v: VarInfo, idx: VarInfo | undefined, iterE: Expr, body: Code, pos: Pos): Code {
    const iter = this.expr(iterE);
    const vs = v.slot;
    const vb = v.boxed;
    const is = idx?.slot ?? -1;
    const ib = idx?.boxed ?? false;
    /** Runs the body once; returns true to stop the loop. */
    const step = (s: Value[], r: Run, x: Value, n: number): boolean => {
      s[vs] = vb ? new Cell(x) : x;
      if (is >= 0) s[is] = ib ? new Cell(n) : n;
      body(s, r);
      if (r.ctl) {
        if (r.ctl !== CTL_CONTINUE) return true;
        r.ctl = 0;
      }
      if (++r.ops >= r.nextCheck) r.tick(pos);
      return false;
    };
    const finish = (r: Run): Value => {
      if (r.ctl === CTL_BREAK) {
        r.ctl = 0;
        const x = r.cv;
        r.cv = undefined;
        return x;
      }
      return undefined;
    };
    return (s, r) => {
      const it = iter(s, r);
      if (it instanceof RRange) {
        const end = it.inclusive ? it.end : undefined;
        if (typeof it.start === 'number' && typeof it.end === 'number') {
          const stop = it.inclusive ? it.end + 1 : it.end;
          // Fast path: the hot loop of most scripts; `step` inlined by hand.
          if (!vb && is < 0) {
            for (let i = it.start; i < stop; i++) {
              s[vs] = i;
              body(s, r);
              if (r.ctl) {
                if (r.ctl !== CTL_CONTINUE) return finish(r);
                r.ctl = 0;
              }
              if (++r.ops >= r.nextCheck) r.tick(pos);
            }
            return undefined;
          }
          let n = 0;
          for (let i = it.start; i < stop; i++) if (step(s, r, i, n++)) return finish(r);
          return undefined;
        }
        let n = 0;
        const last = BigInt(end ?? it.end) - (end === undefined ? 1n : 0n);
        for (let i = BigInt(it.start); i <= last; i++) if (step(s, r, normBig(i)!, n++)) return finish(r);
        return undefined;
      }
      if (Array.isArray(it)) {
        const items = it.slice();
        r.charge(shallowBytes(items), iterE.pos);
        for (let n = 0; n < items.length; n++) {
          const x = items[n];
          if (step(s, r, typeof x === 'object' && isContainer(x) ? chargedCopy(x, r, iterE.pos) : x, n)) return finish(r);
        }
        return undefined;
      }
      if (typeof it === 'string') {
        const cs = chars(it);
        r.charge(shallowBytes(cs), iterE.pos);
        for (let n = 0; n < cs.length; n++) if (step(s, r, new RChar(cs[n]), n)) return finish(r);
        return undefined;
      }
      throw runtimeError(`For loop expects an iterable type (array, range or string), not ${typeName(it)}`, iterE.pos);
    };
  }

  private tryExpr(body: Code, errVar: VarInfo | undefined, handler: Code): Code {
    return (s, r) => {
      const depth = r.depth;
      try {
        return body(s, r);
      } catch (e) {
        if (!(e instanceof RhaiError) || !e.catchable) throw e;
        r.depth = depth;
        r.ctl = 0;
        if (errVar) s[errVar.slot] = bind(errVar, errorValue(e));
        return handler(s, r);
      }
    };
  }
}

/** What `catch (err)` sees: the thrown value, or for system errors a map describing the error. */
function errorValue(e: RhaiError): Value {
  if (e.kind === 'throw') return thrownValues.get(e);
  const m: RMap = new Map();
  m.set('message', e.description);
  m.set('line', e.line);
  m.set('position', e.column);
  return m;
}

function truth(v: Value, pos: Pos): boolean {
  if (typeof v !== 'boolean') throw typeErr('bool', v, pos);
  return v;
}

function inRange(p: RRange, v: Value): boolean {
  const x = v as number | bigint;
  return x >= p.start && (p.inclusive ? x <= p.end : x < p.end);
}

/** Switch case values are literals; evaluate them once at compile time. */
function constValue(e: Expr, pos: Pos): Value {
  switch (e.k) {
    case 'lit':
      return e.v;
    case 'array':
      return e.items.map((x) => constValue(x, pos));
    case 'map':
      return new Map(e.entries.map(([k, x]) => [k, constValue(x, pos)]));
    case 'unary':
      return e.op === '-' ? neg(constValue(e.e, pos), e.pos) : constValue(e.e, pos);
    case 'bin':
      return range(constValue(e.l, pos), constValue(e.r, pos), e.op === '..=', e.pos);
    default:
      throw runtimeError('Expecting a literal value for a switch case', pos);
  }
}

/**
 * Rhai parser: tokens → AST (precedence climbing with Rhai's operator precedence table).
 */
import type { Expr, FnDef, ProgramAst, SwitchCase, VarInfo } from './ast.js';
import { parseError, type Pos } from './errors.js';
import { I64_MIN_ABS, tokenize, type Token } from './lexer.js';
import { Scopes } from './scope.js';
import { RChar, RFloat } from './values.js';

/** Binary operator precedence, from the Rhai Book. */
const BINARY: Record<string, number> = {
  '||': 30,
  '|': 30,
  '^': 30,
  '&&': 60,
  '&': 60,
  '==': 90,
  '!=': 90,
  in: 110,
  '!in': 110,
  '>': 130,
  '>=': 130,
  '<': 130,
  '<=': 130,
  '??': 135,
  '..': 140,
  '..=': 140,
  '+': 150,
  '-': 150,
  '*': 180,
  '/': 180,
  '%': 180,
  '**': 190,
  '<<': 210,
  '>>': 210,
};

const ASSIGN = new Set(['=', '+=', '-=', '*=', '/=', '%=', '**=', '<<=', '>>=', '&=', '|=', '^=']);

const KEYWORDS = new Set([
  'let',
  'const',
  'if',
  'else',
  'switch',
  'do',
  'while',
  'until',
  'loop',
  'for',
  'in',
  'break',
  'continue',
  'return',
  'throw',
  'try',
  'catch',
  'fn',
  'private',
  'true',
  'false',
  'this',
  'import',
  'export',
  'as',
  'global',
]);

/** Statements ending in a block need no `;` after them. */
const BLOCK_LIKE = new Set(['block', 'if', 'switch', 'while', 'loop', 'for', 'try']);

export function parse(src: string): ProgramAst {
  return new Parser(tokenize(src)).program();
}

class Parser {
  private p = 0;
  private readonly scopes = new Scopes();
  private readonly fns: FnDef[] = [];
  private anonCount = 0;

  constructor(private toks: Token[]) {}

  program(): ProgramAst {
    const pos = this.posOf(this.peek());
    const body: Expr[] = [];
    while (this.peek().k !== 'eof') {
      if (this.isId('fn') || (this.isId('private') && this.isIdAt(1, 'fn'))) {
        this.fnDef();
        continue;
      }
      body.push(this.statement());
    }
    return { fns: this.fns, main: { k: 'block', body, pos }, frame: this.scopes.frame };
  }

  // -- token helpers ----------------------------------------------------------------------------

  private peek(o = 0): Token {
    return this.toks[Math.min(this.p + o, this.toks.length - 1)];
  }

  private posOf(t: Token): Pos {
    return { line: t.line, col: t.col };
  }

  private isOp(v: string): boolean {
    const t = this.peek();
    return t.k === 'op' && t.v === v;
  }

  private isId(v: string): boolean {
    const t = this.peek();
    return t.k === 'id' && t.v === v;
  }

  private isIdAt(o: number, v: string): boolean {
    const t = this.peek(o);
    return t.k === 'id' && t.v === v;
  }

  private eatOp(v: string): boolean {
    if (this.isOp(v)) {
      this.p++;
      return true;
    }
    return false;
  }

  private expectOp(v: string, why: string): Token {
    const t = this.peek();
    if (t.k === 'op' && t.v === v) {
      this.p++;
      return t;
    }
    throw parseError(`Expecting '${v}' ${why}`, this.posOf(t));
  }

  private ident(what: string): Token & { k: 'id' } {
    const t = this.peek();
    if (t.k !== 'id') throw parseError(`Expecting ${what}`, this.posOf(t));
    if (KEYWORDS.has(t.v)) throw parseError(`Reserved keyword '${t.v}' cannot be used as ${what}`, this.posOf(t));
    this.p++;
    return t;
  }

  private describe(t: Token): string {
    switch (t.k) {
      case 'eof':
        return 'end of script';
      case 'str':
      case 'tpl':
        return 'string';
      case 'op':
      case 'id':
        return `'${t.v}'`;
      default:
        return String(t.v);
    }
  }

  // -- statements -------------------------------------------------------------------------------

  private fnDef(): void {
    const start = this.peek();
    if (!this.scopes.atTopLevel)
      throw parseError('Function definitions must be at global level and cannot be inside a block or another function', this.posOf(start));
    if (this.isId('private')) this.p++;
    this.p++;
    const name = this.ident('a function name').v;
    this.expectOp('(', 'to start the parameters list');
    this.scopes.enterFunction('fn');
    const params: VarInfo[] = [];
    const seen = new Set<string>();
    while (!this.isOp(')')) {
      const pt = this.ident('a parameter name');
      if (seen.has(pt.v)) throw parseError(`Duplicated parameter '${pt.v}' in function '${name}'`, this.posOf(pt));
      seen.add(pt.v);
      params.push(this.scopes.declare(pt.v));
      if (!this.eatOp(',')) break;
    }
    this.expectOp(')', 'to close the parameters list');
    if (!this.isOp('{')) throw parseError(`Expecting '{' to start the body of function '${name}'`, this.posOf(this.peek()));
    const body = this.block();
    const { frame } = this.scopes.exitFunction();
    if (this.fns.some((f) => f.name === name && f.params.length === params.length))
      throw parseError(`Function '${name}' with ${params.length} parameters already exists`, this.posOf(start));
    this.fns.push({ name, params, frame, body, pos: this.posOf(start) });
  }

  private statement(): Expr {
    const t = this.peek();
    if (t.k === 'op' && t.v === ';') {
      this.p++;
      return { k: 'lit', v: undefined, pos: this.posOf(t) };
    }
    if (t.k === 'id') {
      if (t.v === 'fn' || (t.v === 'private' && this.isIdAt(1, 'fn'))) {
        throw parseError('Function definitions must be at global level and cannot be inside a block or another function', this.posOf(t));
      }
      if (t.v === 'import' || t.v === 'export') throw parseError(`Modules are not supported: '${t.v}' is not available in this engine`, this.posOf(t));
    }
    const s = this.statementBody();
    this.terminate(s);
    return s;
  }

  private terminate(s: Expr): void {
    if (this.eatOp(';')) return;
    if (BLOCK_LIKE.has(s.k) || this.isOp('}') || this.peek().k === 'eof') return;
    throw parseError("Expecting ';' to terminate this statement", this.posOf(this.peek()));
  }

  private statementBody(): Expr {
    const t = this.peek();
    const pos = this.posOf(t);
    if (t.k === 'id' && (t.v === 'let' || t.v === 'const')) {
      this.p++;
      const name = this.ident('a variable name').v;
      let value: Expr | undefined;
      if (this.eatOp('=')) value = this.expr();
      else if (t.v === 'const') throw parseError(`Expecting '=' to define constant '${name}'`, this.posOf(this.peek()));
      const info = this.scopes.declare(name, t.v === 'const');
      return { k: 'let', info, value, pos };
    }
    const e = this.expr();
    const a = this.peek();
    if (a.k === 'op' && ASSIGN.has(a.v)) {
      this.checkAssignable(e);
      this.p++;
      const value = this.expr();
      return { k: 'assign', op: a.v, target: e, value, pos: this.posOf(a) };
    }
    return e;
  }

  private checkAssignable(e: Expr): void {
    let root = e;
    while (root.k === 'index' || root.k === 'prop') {
      if (root.safe) throw parseError('Cannot assign through ?. or ?[', root.pos);
      root = root.obj;
    }
    if (root.k === 'var') {
      if (root.ref?.constant && e === root) throw parseError(`Cannot assign to constant '${root.name}'`, root.pos);
      return;
    }
    if (root.k === 'this') return;
    throw parseError('Assignment to an unsupported target', e.pos);
  }

  private block(): Expr {
    const open = this.expectOp('{', 'to start a statement block');
    this.scopes.pushBlock();
    const body: Expr[] = [];
    while (!this.isOp('}')) {
      if (this.peek().k === 'eof') throw parseError("Expecting '}' to end this statement block", this.posOf(open));
      body.push(this.statement());
    }
    this.p++;
    this.scopes.popBlock();
    return { k: 'block', body, pos: this.posOf(open) };
  }

  // -- expressions ------------------------------------------------------------------------------

  expr(): Expr {
    return this.binary(0);
  }

  private binary(minPrec: number): Expr {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      const op = t.k === 'op' ? t.v : t.k === 'id' && t.v === 'in' ? 'in' : undefined;
      if (op === undefined) return left;
      const prec = BINARY[op];
      if (prec === undefined || prec < minPrec) return left;
      this.p++;
      // `**` is right-associative; everything else associates left.
      const right = this.binary(op === '**' ? prec : prec + 1);
      left = { k: 'bin', op, l: left, r: right, pos: this.posOf(t) };
    }
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.k === 'op' && (t.v === '-' || t.v === '+' || t.v === '!')) {
      this.p++;
      const n = this.peek();
      if (t.v === '-' && n.k === 'int' && n.v === I64_MIN_ABS) {
        this.p++;
        return this.postfix({ k: 'lit', v: -I64_MIN_ABS, pos: this.posOf(t) });
      }
      const e = this.unary();
      if (t.v === '-' && e.k === 'lit') {
        // Fold negative literals so that i64::MIN can be written.
        if (typeof e.v === 'number') return { k: 'lit', v: e.v === 0 ? 0 : -e.v, pos: this.posOf(t) };
        if (e.v instanceof RFloat) return { k: 'lit', v: new RFloat(-e.v.v), pos: this.posOf(t) };
      }
      return { k: 'unary', op: t.v, e, pos: this.posOf(t) };
    }
    return this.postfix(this.primary());
  }

  private postfix(e: Expr): Expr {
    for (;;) {
      const t = this.peek();
      if (t.k !== 'op') return e;
      if (t.v === '.' || t.v === '?.') {
        this.p++;
        const nt = this.peek();
        if (nt.k !== 'id') throw parseError(`Expecting a property or method name after '${t.v}'`, this.posOf(nt));
        this.p++;
        if (this.isOp('(')) {
          const args = this.args();
          e = { k: 'method', obj: e, name: nt.v, args, safe: t.v === '?.', pos: this.posOf(nt) };
        } else {
          e = { k: 'prop', obj: e, name: nt.v, safe: t.v === '?.', pos: this.posOf(nt) };
        }
      } else if (t.v === '[' || t.v === '?[') {
        this.p++;
        const idx = this.expr();
        this.expectOp(']', 'to close the index');
        e = { k: 'index', obj: e, idx, safe: t.v === '?[', pos: this.posOf(t) };
      } else return e;
    }
  }

  private args(): Expr[] {
    this.expectOp('(', 'to start the arguments');
    const args: Expr[] = [];
    while (!this.isOp(')')) {
      args.push(this.expr());
      if (!this.eatOp(',')) break;
    }
    this.expectOp(')', 'to close the arguments list');
    return args;
  }

  private primary(): Expr {
    const t = this.peek();
    const pos = this.posOf(t);
    switch (t.k) {
      case 'int':
        if (t.v === I64_MIN_ABS) throw parseError(`Invalid number: ${t.v}`, pos);
        this.p++;
        return { k: 'lit', v: t.v, pos };
      case 'str':
        this.p++;
        return { k: 'lit', v: t.v, pos };
      case 'float':
        this.p++;
        return { k: 'lit', v: new RFloat(t.v), pos };
      case 'char':
        this.p++;
        return { k: 'lit', v: new RChar(t.v), pos };
      case 'tpl':
        this.p++;
        return this.template(t.v, pos);
      case 'eof':
        throw parseError('Script is incomplete', pos);
      case 'op':
        return this.primaryOp(t.v, pos);
      case 'id':
        return this.primaryId(t.v, pos);
    }
  }

  private template(parts: (string | { tokens: Token[]; pos: Pos })[], pos: Pos): Expr {
    const out: (string | Expr)[] = [];
    for (const part of parts) {
      if (typeof part === 'string') {
        out.push(part);
        continue;
      }
      const saved = this.toks;
      const savedP = this.p;
      this.toks = part.tokens;
      this.p = 0;
      if (this.peek().k === 'eof') throw parseError('Expecting an expression inside ${ }', part.pos);
      const e = this.expr();
      if (this.peek().k !== 'eof') throw parseError("Expecting '}' to close the string interpolation", this.posOf(this.peek()));
      this.toks = saved;
      this.p = savedP;
      out.push(e);
    }
    return { k: 'tpl', parts: out, pos };
  }

  private primaryOp(v: string, pos: Pos): Expr {
    switch (v) {
      case '(': {
        this.p++;
        if (this.eatOp(')')) return { k: 'lit', v: undefined, pos };
        const e = this.expr();
        this.expectOp(')', 'to close the parenthesized expression');
        return e;
      }
      case '[': {
        this.p++;
        const items: Expr[] = [];
        while (!this.isOp(']')) {
          items.push(this.expr());
          if (!this.eatOp(',')) break;
        }
        this.expectOp(']', 'to end this array literal');
        return { k: 'array', items, pos };
      }
      case '#{':
        return this.mapLiteral(pos);
      case '{':
        return this.block();
      case '|':
      case '||':
        return this.closure(pos);
    }
    throw parseError(`Unexpected ${this.describe(this.peek())}`, pos);
  }

  private mapLiteral(pos: Pos): Expr {
    this.p++;
    const entries: [string, Expr][] = [];
    const seen = new Set<string>();
    while (!this.isOp('}')) {
      const kt = this.peek();
      let key: string;
      if (kt.k === 'id' || kt.k === 'str') key = kt.v;
      else throw parseError('Expecting a property name for an object map literal', this.posOf(kt));
      if (seen.has(key)) throw parseError(`Duplicated property '${key}' for object map literal`, this.posOf(kt));
      seen.add(key);
      this.p++;
      this.expectOp(':', `to follow the property '${key}' in this object map literal`);
      entries.push([key, this.expr()]);
      if (!this.eatOp(',')) break;
    }
    this.expectOp('}', 'to end this object map literal');
    return { k: 'map', entries, pos };
  }

  private closure(pos: Pos): Expr {
    const params: string[] = [];
    if (this.eatOp('|')) {
      while (!this.isOp('|')) {
        params.push(this.ident('a parameter name').v);
        if (!this.eatOp(',')) break;
      }
      this.expectOp('|', 'to close the parameters list of a closure');
    } else this.p++;
    this.scopes.enterFunction('closure');
    const infos = params.map((n) => this.scopes.declare(n));
    // A closure body may be an assignment, e.g. `|| this.count += 1`.
    const body = this.statementBody();
    const { frame, captures } = this.scopes.exitFunction();
    const fn: FnDef = { name: `anon$${this.anonCount++}`, params: infos, frame, body, pos };
    return { k: 'closure', fn, captures, pos };
  }

  private primaryId(v: string, pos: Pos): Expr {
    switch (v) {
      case 'true':
      case 'false':
        this.p++;
        return { k: 'lit', v: v === 'true', pos };
      case 'this':
        this.p++;
        return { k: 'this', ref: this.scopes.resolveThis(), pos };
      case 'if':
        return this.ifExpr();
      case 'switch':
        return this.switchExpr();
      case 'while':
      case 'loop':
      case 'do':
      case 'for':
        return this.loopExpr(v);
      case 'try':
        return this.tryExpr();
      case 'break':
      case 'continue':
      case 'return':
      case 'throw':
        return this.jump(v, pos);
      case 'fn':
        throw parseError('Function definitions must be at global level and cannot be inside a block or another function', pos);
      case 'let':
      case 'const':
        throw parseError(`'${v}' is a statement and cannot be used as an expression`, pos);
      case 'import':
      case 'export':
        throw parseError(`Modules are not supported: '${v}' is not available in this engine`, pos);
    }
    if (KEYWORDS.has(v)) throw parseError(`Unexpected '${v}'`, pos);
    this.p++;
    if (this.isOp('::')) throw parseError(`Modules are not supported: '${v}::' namespaces are not available in this engine`, pos);
    if (this.isOp('(')) {
      const args = this.args();
      const r = this.scopes.resolve(v);
      return { k: 'call', name: v, args, ref: r.ref, pos };
    }
    if (this.isOp('!') && this.peek(1).k === 'op' && this.peek(1).v === '(') throw parseError(`Calling '${v}!(...)' with scope capture is not supported`, pos);
    const r = this.scopes.resolve(v);
    return { k: 'var', name: v, ref: r.ref, external: r.external, pos };
  }

  private jump(v: string, pos: Pos): Expr {
    this.p++;
    const hasValue = !this.isOp(';') && !this.isOp('}') && !this.isOp(',') && this.peek().k !== 'eof';
    switch (v) {
      case 'break':
        if (!this.scopes.inLoop) throw parseError('Break statement should only be used inside a loop', pos);
        return { k: 'break', value: hasValue ? this.expr() : undefined, pos };
      case 'continue':
        if (!this.scopes.inLoop) throw parseError('Continue statement should only be used inside a loop', pos);
        return { k: 'continue', pos };
      case 'return':
        return { k: 'return', value: hasValue ? this.expr() : undefined, pos };
      default:
        return { k: 'throw', value: hasValue ? this.expr() : undefined, pos };
    }
  }

  private ifExpr(): Expr {
    const pos = this.posOf(this.peek());
    this.p++;
    const cond = this.expr();
    if (!this.isOp('{')) throw parseError("Expecting '{' to start the body of 'if'", this.posOf(this.peek()));
    const then = this.block();
    let els: Expr | undefined;
    if (this.isId('else')) {
      this.p++;
      if (this.isId('if')) els = this.ifExpr();
      else if (this.isOp('{')) els = this.block();
      else throw parseError("Expecting '{' or 'if' after 'else'", this.posOf(this.peek()));
    }
    return { k: 'if', cond, then, else: els, pos };
  }

  private switchExpr(): Expr {
    const pos = this.posOf(this.peek());
    this.p++;
    const subject = this.expr();
    this.expectOp('{', "to start the body of 'switch'");
    const cases: SwitchCase[] = [];
    let def: Expr | undefined;
    while (!this.isOp('}')) {
      const ct = this.peek();
      if (def) throw parseError('Default case must be the last case in a switch', this.posOf(ct));
      let patterns: Expr[] = [];
      let isDefault = false;
      if (ct.k === 'id' && ct.v === '_') {
        this.p++;
        isDefault = true;
      } else {
        patterns = [this.binary(31)];
        while (this.eatOp('|')) patterns.push(this.binary(31));
        for (const p of patterns) this.checkConstant(p);
      }
      let cond: Expr | undefined;
      if (this.isId('if')) {
        if (isDefault) throw parseError('Default case cannot have a condition', this.posOf(this.peek()));
        this.p++;
        cond = this.expr();
      }
      this.expectOp('=>', 'after the switch case');
      const body = this.isOp('{') ? this.block() : this.statementBody();
      if (isDefault) def = body;
      else cases.push({ patterns, cond, body });
      if (!this.eatOp(',') && !this.isOp('}') && body.k !== 'block') throw parseError("Expecting ',' to separate the switch cases", this.posOf(this.peek()));
    }
    this.p++;
    return { k: 'switch', subject, cases, def, pos };
  }

  /** Switch cases match literals (and ranges of literals), as in Rhai. */
  private checkConstant(e: Expr): void {
    switch (e.k) {
      case 'lit':
        return;
      case 'array':
        for (const x of e.items) this.checkConstant(x);
        return;
      case 'map':
        for (const [, x] of e.entries) this.checkConstant(x);
        return;
      case 'unary':
        this.checkConstant(e.e);
        return;
      case 'bin':
        if (e.op === '..' || e.op === '..=') {
          this.checkConstant(e.l);
          this.checkConstant(e.r);
          return;
        }
    }
    throw parseError('Expecting a literal value for a switch case', e.pos);
  }

  private loopExpr(kind: string): Expr {
    const pos = this.posOf(this.peek());
    this.p++;
    if (kind === 'while') {
      const cond = this.expr();
      const body = this.loopBody();
      return { k: 'while', cond, body, pos };
    }
    if (kind === 'loop') return { k: 'loop', body: this.loopBody(), pos };
    if (kind === 'do') {
      const body = this.loopBody();
      const until = this.isId('until');
      if (!until && !this.isId('while')) throw parseError("Expecting 'while' or 'until' after the body of 'do'", this.posOf(this.peek()));
      this.p++;
      const cond = this.expr();
      return { k: 'do', body, cond, until, pos };
    }
    // for x in iter / for (x, i) in iter
    let name: string;
    let idxName: string | undefined;
    if (this.eatOp('(')) {
      name = this.ident('a variable name').v;
      this.expectOp(',', 'to separate the loop variable and the counter');
      idxName = this.ident('a counter variable name').v;
      this.expectOp(')', 'to close the loop variables');
    } else name = this.ident('a variable name').v;
    if (!this.isId('in')) throw parseError("Expecting 'in' after the for loop variable", this.posOf(this.peek()));
    this.p++;
    const iter = this.expr();
    this.scopes.pushBlock();
    const v = this.scopes.declare(name);
    const idx = idxName !== undefined ? this.scopes.declare(idxName) : undefined;
    const body = this.loopBody();
    this.scopes.popBlock();
    return { k: 'for', v, idx, iter, body, pos };
  }

  private loopBody(): Expr {
    if (!this.isOp('{')) throw parseError("Expecting '{' to start the loop body", this.posOf(this.peek()));
    this.scopes.enterLoop();
    const body = this.block();
    this.scopes.exitLoop();
    return body;
  }

  private tryExpr(): Expr {
    const pos = this.posOf(this.peek());
    this.p++;
    const body = this.block();
    if (!this.isId('catch')) throw parseError("Expecting 'catch' after the body of 'try'", this.posOf(this.peek()));
    this.p++;
    this.scopes.pushBlock();
    let err: VarInfo | undefined;
    if (this.eatOp('(')) {
      err = this.scopes.declare(this.ident('a variable name for the error').v);
      this.expectOp(')', 'to close the catch variable');
    }
    const handler = this.block();
    this.scopes.popBlock();
    return { k: 'try', body, err, handler, pos };
  }
}

/**
 * Rhai AST. Names are resolved to frame slots by the parser (see scope.ts), so the compiler can turn
 * variable access into array indexing.
 */
import type { Pos } from './errors.js';
import type { Value } from './values.js';

/** One variable: a slot in its function's frame. `boxed` when a closure captures it (shared cell). */
export interface VarInfo {
  name: string;
  slot: number;
  constant: boolean;
  boxed: boolean;
}

/** The frame layout of one function body (or of the top level). */
export interface FrameInfo {
  nslots: number;
  /** Slot holding `this`, allocated when the body mentions `this`. */
  thisInfo?: VarInfo;
}

/** A closure copies the shared cell of an enclosing variable into one of its own slots. */
export interface Capture {
  from: VarInfo;
  to: VarInfo;
}

export interface FnDef {
  name: string;
  params: VarInfo[];
  frame: FrameInfo;
  body: Expr;
  pos: Pos;
}

export interface SwitchCase {
  patterns: Expr[];
  cond?: Expr;
  body: Expr;
}

type N<K extends string, T> = { k: K; pos: Pos } & T;

export type Expr =
  | N<'lit', { v: Value }>
  | N<'tpl', { parts: (string | Expr)[] }>
  /** `ref` undefined: a variable of the host-provided scope, looked up by name at run time. */
  | N<'var', { name: string; ref?: VarInfo; external: boolean }>
  | N<'this', { ref?: VarInfo }>
  | N<'array', { items: Expr[] }>
  | N<'map', { entries: [string, Expr][] }>
  | N<'unary', { op: string; e: Expr }>
  | N<'bin', { op: string; l: Expr; r: Expr }>
  | N<'assign', { op: string; target: Expr; value: Expr }>
  | N<'index', { obj: Expr; idx: Expr; safe: boolean }>
  | N<'prop', { obj: Expr; name: string; safe: boolean }>
  /** `ref`: the call names a variable (a function pointer called like a function). */
  | N<'call', { name: string; args: Expr[]; ref?: VarInfo }>
  | N<'method', { obj: Expr; name: string; args: Expr[]; safe: boolean }>
  | N<'closure', { fn: FnDef; captures: Capture[] }>
  | N<'block', { body: Expr[] }>
  | N<'if', { cond: Expr; then: Expr; else?: Expr }>
  | N<'switch', { subject: Expr; cases: SwitchCase[]; def?: Expr }>
  | N<'while', { cond: Expr; body: Expr }>
  | N<'loop', { body: Expr }>
  | N<'do', { body: Expr; cond: Expr; until: boolean }>
  | N<'for', { v: VarInfo; idx?: VarInfo; iter: Expr; body: Expr }>
  | N<'break', { value?: Expr }>
  | N<'continue', object>
  | N<'return', { value?: Expr }>
  | N<'throw', { value?: Expr }>
  | N<'try', { body: Expr; err?: VarInfo; handler: Expr }>
  | N<'let', { info: VarInfo; value?: Expr }>;

export interface ProgramAst {
  fns: FnDef[];
  main: Expr;
  frame: FrameInfo;
}

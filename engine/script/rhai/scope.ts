/**
 * Lexical scopes used while parsing: every `let` gets a fresh frame slot, references resolve to the
 * slot they name, and a closure that mentions an outer variable captures it (both become shared cells).
 * Script functions (`fn`) see only their parameters, as in Rhai.
 */
import type { Capture, FrameInfo, VarInfo } from './ast.js';

type ScopeKind = 'top' | 'fn' | 'closure';

class FnScope {
  readonly frame: FrameInfo = { nslots: 0 };
  readonly blocks: Map<string, VarInfo>[] = [new Map()];
  readonly captures: Capture[] = [];
  loops = 0;
  constructor(
    readonly kind: ScopeKind,
    readonly parent?: FnScope,
  ) {}

  declare(name: string, constant: boolean): VarInfo {
    const info: VarInfo = { name, slot: this.frame.nslots++, constant, boxed: false };
    this.blocks[this.blocks.length - 1].set(name, info);
    return info;
  }

  findLocal(name: string): VarInfo | undefined {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const v = this.blocks[i].get(name);
      if (v) return v;
    }
    return undefined;
  }
}

export interface Resolved {
  ref?: VarInfo;
  /** True when an unresolved name may be found in the host-provided scope at run time. */
  external: boolean;
}

export class Scopes {
  private cur = new FnScope('top');

  get frame(): FrameInfo {
    return this.cur.frame;
  }

  get atTopLevel(): boolean {
    return this.cur.kind === 'top' && this.cur.blocks.length === 1;
  }

  get inLoop(): boolean {
    return this.cur.loops > 0;
  }

  enterLoop(): void {
    this.cur.loops++;
  }

  exitLoop(): void {
    this.cur.loops--;
  }

  pushBlock(): void {
    this.cur.blocks.push(new Map());
  }

  popBlock(): void {
    this.cur.blocks.pop();
  }

  declare(name: string, constant = false): VarInfo {
    return this.cur.declare(name, constant);
  }

  enterFunction(kind: 'fn' | 'closure'): void {
    this.cur = new FnScope(kind, this.cur);
  }

  /** Leaves a function scope, returning its frame and (for closures) what it captured. */
  exitFunction(): { frame: FrameInfo; captures: Capture[] } {
    const s = this.cur;
    this.cur = s.parent!;
    return { frame: s.frame, captures: s.captures };
  }

  resolve(name: string): Resolved {
    return resolveIn(this.cur, name);
  }

  /** `this` inside a function or closure; undefined at top level. */
  resolveThis(): VarInfo | undefined {
    if (this.cur.kind === 'top') return undefined;
    const f = this.cur.frame;
    f.thisInfo ??= { name: 'this', slot: f.nslots++, constant: false, boxed: false };
    return f.thisInfo;
  }
}

function resolveIn(s: FnScope, name: string): Resolved {
  const local = s.findLocal(name);
  if (local) return { ref: local, external: false };
  if (s.kind === 'top') return { external: true };
  if (s.kind === 'fn') return { external: false };
  const outer = resolveIn(s.parent!, name);
  if (!outer.ref) return outer;
  outer.ref.boxed = true;
  const to: VarInfo = { name, slot: s.frame.nslots++, constant: outer.ref.constant, boxed: true };
  s.blocks[0].set(name, to);
  s.captures.push({ from: outer.ref, to });
  return { ref: to, external: false };
}

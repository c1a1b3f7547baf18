/**
 * Rhai errors. Messages follow Rhai's Display style: a description followed by
 * " (line L, position C)" when the position is known.
 */
import { SvcFailure } from '../../model/index.js';

/** A source position; line and column are 1-based, 0 means "unknown". */
export interface Pos {
  line: number;
  col: number;
}

export const NO_POS: Pos = { line: 0, col: 0 };

/**
 * - `parse`: the script could not be compiled.
 * - `runtime`: an evaluation error (type mismatch, missing function, overflow...). Catchable by `try`.
 * - `throw`: a value thrown by the script with `throw`. Catchable by `try`.
 * - `limit`: a resource limit was hit (call depth, data size, operations). Not catchable.
 * - `timeout`: the wall-clock deadline passed. Not catchable.
 */
export type RhaiErrorKind = 'parse' | 'runtime' | 'throw' | 'limit' | 'timeout';

export class RhaiError extends SvcFailure {
  readonly kind: RhaiErrorKind;
  /** The message without the position suffix. */
  readonly description: string;
  line: number;
  column: number;
  /** For `kind === 'throw'`: the thrown Rhai value, as a JS value (see index.ts for the conversion rule). */
  thrown?: unknown;

  constructor(kind: RhaiErrorKind, description: string, pos: Pos = NO_POS) {
    super(description);
    this.name = 'RhaiError';
    this.kind = kind;
    this.description = description;
    this.line = pos.line;
    this.column = pos.col;
    this.message = this.format();
  }

  /** Fills in a position when the error was raised where none was known (natives). */
  at(pos: Pos): this {
    if (this.line === 0 && pos.line !== 0) {
      this.line = pos.line;
      this.column = pos.col;
      this.message = this.format();
    }
    return this;
  }

  get catchable(): boolean {
    return this.kind === 'runtime' || this.kind === 'throw';
  }

  private format(): string {
    return this.line > 0 ? `${this.description} (line ${this.line}, position ${this.column})` : this.description;
  }
}

/** The wall-clock deadline passed or the operation budget ran out; distinguishable with `instanceof`. */
export class RhaiTimeoutError extends RhaiError {
  constructor(description: string, pos: Pos = NO_POS) {
    super('timeout', description, pos);
    this.name = 'RhaiTimeoutError';
  }
}

export function parseError(description: string, pos: Pos): RhaiError {
  return new RhaiError('parse', description, pos);
}

export function runtimeError(description: string, pos: Pos = NO_POS): RhaiError {
  return new RhaiError('runtime', description, pos);
}

export function limitError(description: string, pos: Pos = NO_POS): RhaiError {
  return new RhaiError('limit', description, pos);
}

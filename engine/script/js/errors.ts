/**
 * The two ways a script can fail, kept apart because docs/errors.md answers them differently
 * (e.g. response inject: error → 400 `invalid injection`, timeout → 504 `injection timeout`).
 */
import { SvcFailure } from '../../model/index.js';

/**
 * Why a script failed: it did not compile, threw, exceeded a structural bound (loop, recursion,
 * memory), returned a result over the scripted-body cap (too-large), or a `ctx.state` call found the
 * flow store failing (backend).
 */
export type ScriptErrorKind = 'compile' | 'runtime' | 'loop-bound' | 'recursion' | 'memory' | 'backend' | 'too-large' | 'host';

/** The script failed (compile error, exception, or a loop/recursion/memory bound). */
export class ScriptError extends SvcFailure {
  readonly kind: ScriptErrorKind;

  constructor(message: string, kind: ScriptErrorKind = 'runtime') {
    super(message);
    this.name = 'ScriptError';
    this.kind = kind;
  }
}

/** The script did not finish before its deadline (`_svc.scriptEngine.timeoutMs`). */
export class ScriptTimeoutError extends SvcFailure {
  readonly timeoutMs: number;

  constructor(timeoutMs: number, message = `script exceeded its ${timeoutMs} ms deadline`) {
    super(message);
    this.name = 'ScriptTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/**
 * User regular expressions (`matches` predicates, `except`, copy/lookup regex selectors) compiled so
 * that no request can stall an event loop on catastrophic backtracking.
 *
 * - A pattern V8's linear-time engine can run (no backreferences, no lookaround, small counted
 *   repetitions) runs on V8's backtracking engine as usual, with the process-wide flag that moves an
 *   execution to the linear engine once it backtracks too much: same JavaScript semantics, no cost on
 *   the usual path. The linear engine has no `i` flag, so a case-insensitive pattern is rewritten into
 *   the equivalent case-sensitive one first (each letter becomes the class of its case variants, as
 *   JavaScript's non-unicode case folding defines them).
 * - Any other pattern runs under a wall-clock bound (a `node:vm` timeout, the one synchronous way to
 *   interrupt a running regex); overrunning it throws PatternTimeout, which the request answers as a
 *   §7 error.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';
import { SvcFailure } from './failures.js';

// Flags read when a regex is compiled (its first run), so they hold for every user pattern compiled
// after this module loads, on every thread of the process (V8 flags are process-wide).
setFlagsFromString('--enable-experimental-regexp-engine');
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/** The bound of one run of a pattern the linear engine cannot take, in this thread's CPU time (`bounded`). */
export const PATTERN_TIME_LIMIT_MS = 50;

/** A pattern that overran PATTERN_TIME_LIMIT_MS on one input. */
export class PatternTimeout extends SvcFailure {
  constructor(readonly source: string) {
    super(`the regular expression /${source}/ ran longer than ${PATTERN_TIME_LIMIT_MS} ms and was stopped`);
    this.name = 'PatternTimeout';
  }
}

/** How a pattern runs: `linear` (backtracking with the linear engine behind it) or `bounded` (timed). */
export type PatternEngine = 'linear' | 'bounded';

export interface UserPattern {
  readonly source: string;
  readonly engine: PatternEngine;
  test(input: string): boolean;
  exec(input: string): RegExpExecArray | null;
  /** `input` with every match removed (a global pattern: `except`). */
  strip(input: string): string;
}

class LinearPattern implements UserPattern {
  readonly engine = 'linear';
  constructor(
    readonly source: string,
    private readonly regex: RegExp,
  ) {}
  test(input: string): boolean {
    return this.regex.test(input);
  }
  exec(input: string): RegExpExecArray | null {
    return this.regex.exec(input);
  }
  strip(input: string): string {
    return input.replace(this.regex, '');
  }
}

let sandbox: vm.Context | undefined;
let pending: (() => unknown) | undefined;
const runPending = new vm.Script('job()');

/** Wall-clock tries of one bounded run; each gives PATTERN_TIME_LIMIT_MS (so at most 5x that in all). */
const MAX_ATTEMPTS = 5;

/**
 * CPU milliseconds this thread has used: Linux counts them per thread (in 10 ms ticks); elsewhere the
 * process's, which only overstates (a pattern is then stopped sooner, never later).
 */
function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  }
}

/**
 * Runs `work` (a regex call) so that it is interrupted after PATTERN_TIME_LIMIT_MS. The interrupt is
 * wall time, which a busy machine or a GC pause can eat without the regex being slow: an interrupted run
 * is tried again, and the pattern is stopped once its tries have used PATTERN_TIME_LIMIT_MS of this
 * thread's CPU (or after MAX_ATTEMPTS tries), so a catastrophic pattern overruns and a starved one does not.
 */
function bounded<T>(source: string, work: () => T): T {
  sandbox ??= vm.createContext({ job: () => pending?.() });
  pending = work;
  let cpuUsed = 0;
  try {
    for (let attempt = 1; ; attempt++) {
      // The first try is not measured: reading the CPU clock costs more than a typical match.
      const before = attempt > 1 ? threadCpuMs() : 0;
      try {
        return runPending.runInContext(sandbox, { timeout: PATTERN_TIME_LIMIT_MS }) as T;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
        if (attempt > 1) cpuUsed += threadCpuMs() - before;
        // Ticks are 10 ms: a try that really ran its whole bound shows at least 40 of its 50 ms.
        if (cpuUsed >= PATTERN_TIME_LIMIT_MS * 0.8 || attempt === MAX_ATTEMPTS) throw new PatternTimeout(source);
      }
    }
  } finally {
    pending = undefined;
  }
}

/** Inputs up to this long have their `test` answer remembered (requests repeat paths and header values). */
const MEMO_MAX_CHARS = 2048;
const MEMO_ENTRIES = 256;

class BoundedPattern implements UserPattern {
  readonly engine = 'bounded';
  /** A bounded run costs a watchdog thread (~0.1-0.3 ms): answers already known are not run again. */
  private readonly memo = new Map<string, boolean>();
  constructor(
    readonly source: string,
    private readonly regex: RegExp,
  ) {}
  test(input: string): boolean {
    const known = this.memo.get(input);
    if (known !== undefined) return known;
    const result = bounded(this.source, () => this.regex.test(input));
    if (input.length <= MEMO_MAX_CHARS) {
      if (this.memo.size >= MEMO_ENTRIES) this.memo.clear();
      this.memo.set(input, result);
    }
    return result;
  }
  exec(input: string): RegExpExecArray | null {
    return bounded(this.source, () => this.regex.exec(input));
  }
  strip(input: string): string {
    return bounded(this.source, () => input.replace(this.regex, ''));
  }
}

/** Whether V8's linear engine accepts the pattern (the `l` flag refuses what it cannot run). */
function linearCapable(source: string, flags: string): boolean {
  try {
    new RegExp(source, `${flags}l`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Compiles a user pattern with `flags` (any of `g`, `i`, `m`); throws the SyntaxError `new RegExp`
 * throws for an invalid one.
 */
export function compileUserPattern(source: string, flags: string): UserPattern {
  const regex = new RegExp(source, flags);
  if (!flags.includes('i')) return linearCapable(source, flags) ? new LinearPattern(source, regex) : new BoundedPattern(source, regex);
  const caseless = flags.replace('i', '');
  const folded = caseFolded(source);
  if (folded !== undefined && linearCapable(folded, caseless)) return new LinearPattern(source, new RegExp(folded, caseless));
  return new BoundedPattern(source, regex);
}

// ---- case folding (ECMAScript Canonicalize for non-unicode patterns) ----

type Regexpp = typeof import('@eslint-community/regexpp');
let regexpp: Regexpp | undefined;
let parser: InstanceType<Regexpp['RegExpParser']> | undefined;
let variantsByCanon: Map<number, number[]> | undefined;

function canonicalize(code: number): number {
  const upper = String.fromCharCode(code).toUpperCase();
  if (upper.length !== 1) return code;
  const folded = upper.charCodeAt(0);
  return code >= 128 && folded < 128 ? code : folded;
}

/** Every UTF-16 unit that matches `code` under the `i` flag (itself included). */
function variants(code: number): number[] {
  if (!variantsByCanon) {
    variantsByCanon = new Map();
    for (let c = 0; c <= 0xffff; c++) {
      const canon = canonicalize(c);
      const list = variantsByCanon.get(canon);
      if (list) list.push(c);
      else variantsByCanon.set(canon, [c]);
    }
  }
  return variantsByCanon.get(canonicalize(code)) ?? [code];
}

function unit(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A character class body (without brackets) for a sorted set of units, as ranges. */
function classBody(codes: number[]): string {
  let out = '';
  for (let i = 0; i < codes.length; i++) {
    let j = i;
    while (j + 1 < codes.length && codes[j + 1] === codes[j] + 1) j++;
    out += j > i ? `${unit(codes[i])}-${unit(codes[j])}` : unit(codes[i]);
    i = j;
  }
  return out;
}

/** The units outside [min, max] that fold onto a unit inside it. */
function extraVariants(min: number, max: number): number[] {
  const extra = new Set<number>();
  for (let c = min; c <= max; c++) for (const v of variants(c)) if (v < min || v > max) extra.add(v);
  return [...extra].sort((a, b) => a - b);
}

/**
 * `source` rewritten so that, without the `i` flag, it matches exactly what it matches with it; undefined
 * when the parser refuses it (the pattern then runs bounded, as written).
 */
function caseFolded(source: string): string | undefined {
  regexpp ??= createRequire(import.meta.url)('@eslint-community/regexpp') as Regexpp;
  let pattern: ReturnType<InstanceType<Regexpp['RegExpParser']>['parsePattern']>;
  try {
    parser ??= new regexpp.RegExpParser({ strict: false });
    pattern = parser.parsePattern(source, 0, source.length, { unicode: false });
  } catch {
    return undefined;
  }
  const edits: Array<{ start: number; end: number; text: string }> = [];
  regexpp.visitRegExpAST(pattern, {
    onCharacterEnter(node) {
      const parent = node.parent;
      if (parent.type === 'CharacterClassRange') return;
      const extra = extraVariants(node.value, node.value);
      if (extra.length === 0) return;
      const text = parent.type === 'CharacterClass' ? node.raw + classBody(extra) : `[${classBody(variants(node.value).sort((a, b) => a - b))}]`;
      edits.push({ start: node.start, end: node.end, text });
    },
    onCharacterClassRangeEnter(node) {
      const extra = extraVariants(node.min.value, node.max.value);
      if (extra.length > 0) edits.push({ start: node.start, end: node.end, text: node.raw + classBody(extra) });
    },
  });
  let out = '';
  let at = 0;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    out += source.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + source.slice(at);
}

/**
 * QuickJS sandboxes, one per imposter (scope), living in one worker thread. Each scope gets its own
 * runtime so the memory limit, the interrupt deadline and a memory bomb stay within that imposter;
 * its context is reused across calls, so compiled functions and `state` persist.
 *
 * What is enforced (docs/limits.md), per call:
 * - deadline: the interrupt handler stops the script at `deadline` (QuickJS polls it every 10,000
 *   ticks, i.e. well under a millisecond) → timeout.
 * - loop bound: 10,000,000 iterations per call frame, counted by the guards loop-guard.ts writes
 *   into each source. A guard past the bound marks the run and throws; a script that catches that
 *   is stopped at the next interrupt poll, which cannot be caught → error "loop bound exceeded".
 * - recursion: a 96 KB interpreter stack (≈ 550 frames of a trivial function, fewer for frames with
 *   more locals; the SPEC's 512 sits in that range) → error "recursion depth exceeded". Never above
 *   256 KB: a deeper wasm stack can overflow into a host RangeError.
 * - memory: this QuickJS build cannot see allocation sizes (no malloc_usable_size: its own limit
 *   only counts allocations), so the hard bound is the worker's wasm memory, capped at
 *   `memoryLimitBytes` (default 256 MiB, shared by the imposters on that worker) → error "out of
 *   memory". When even the error object cannot be allocated QuickJS throws `null`, so a `null`
 *   thrown while the wasm heap is near its ceiling counts as out of memory (the heap never shrinks:
 *   after one bomb, a script's own `throw null` on that worker reads as out of memory too). The
 *   failing imposter's sandbox (and its state) is then rebuilt so leftover garbage cannot poison
 *   later calls.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import { guardLoops, LOOP_BOUND_HOOK, LOOP_ITERATIONS_PER_FRAME } from './loop-guard.js';
import { PRELUDE } from './prelude.js';
import { BackendFailure } from '../shared/index.js';
import { DEFAULT_MEMORY_LIMIT, type HookKind, type LogLine, type RunMessage, type RunOutcome } from './protocol.js';
import { MAX_SCRIPTED_BODY_BYTES } from '../../model/index.js';

export const STACK_BYTES = 96 * 1024;
const WASM_PAGE = 64 * 1024;
/** What the QuickJS module itself needs before any script runs (emscripten's default start size). */
const BASE_MEMORY = 16 * 1024 * 1024;
/** Compiled functions kept per imposter; the oldest go first when stubs churn through many sources. */
const MAX_FUNCTIONS = 256;
/** Error messages are cut here (a stack overflow's trace alone runs to tens of kilobytes). */
const MAX_MESSAGE = 2000;

type Interrupt = 'timeout' | 'loop-bound' | undefined;

/** A result whose JSON text is over the scripted-body cap: it stays in the sandbox (not copied out, not sent). */
const TOO_LARGE = Symbol('too large');
const RESULT_TOO_LARGE: RunOutcome = {
  ok: false,
  timeout: false,
  kind: 'too-large',
  message: `the result is over the ${MAX_SCRIPTED_BODY_BYTES}-byte response body cap`,
};

/** A `ctx.state.<method>(...args)` call of a `_svc.script` run (engine/script/svc), answered synchronously. */
export type SvcStateCall = (message: RunMessage, flowId: string, method: string, args: unknown[]) => unknown;

class ScopeSandbox {
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private readonly runners: QuickJSHandle;
  private readonly hooks: Record<HookKind | 'result', QuickJSHandle>;
  private readonly functions = new Map<string, QuickJSHandle | string>();
  // No deadline while the trusted prelude is evaluated.
  private deadline = Number.POSITIVE_INFINITY;
  private interrupted: Interrupt;
  /** A `ctx.state` call of the current run found the flow store failing. */
  private storeFailed = false;
  /** The run in progress: what a `ctx.state` call belongs to. */
  private current: RunMessage | undefined;
  logs: LogLine[] = [];

  constructor(
    module: QuickJSWASMModule,
    memoryLimitBytes: number,
    private readonly onPoll: () => void,
    private readonly heapFull: () => boolean,
    private readonly svcState: SvcStateCall,
  ) {
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(memoryLimitBytes);
    this.runtime.setMaxStackSize(STACK_BYTES);
    this.runtime.setInterruptHandler(() => this.poll());
    this.context = this.runtime.newContext();
    const ctx = this.context;
    const hostLog = ctx.newFunction('hostLog', (level, args) => {
      this.logs.push([ctx.getString(level) as LogLine[0], JSON.parse(ctx.getString(args)) as string[]]);
    });
    const hostState = ctx.newFunction('hostState', (flowId, method, args) => {
      if (this.current?.kind !== 'svc') throw new Error('ctx.state is only available to _svc.script');
      let value: unknown;
      try {
        value = this.svcState(this.current, ctx.getString(flowId), ctx.getString(method), JSON.parse(ctx.getString(args)) as unknown[]);
      } catch (err) {
        if (err instanceof BackendFailure) this.storeFailed = true;
        throw err;
      }
      return ctx.newString(value === undefined ? '' : JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
    });
    const loopBound = ctx.newFunction(LOOP_BOUND_HOOK, () => {
      this.interrupted = 'loop-bound';
      return { error: ctx.newError({ name: 'RangeError', message: 'loop bound exceeded' }) };
    });
    ctx.defineProp(ctx.global, LOOP_BOUND_HOOK, { value: loopBound, configurable: false, enumerable: false });
    loopBound.dispose();
    const factory = ctx.unwrapResult(ctx.evalCode(PRELUDE, 'svc-prelude.js'));
    this.runners = ctx.unwrapResult(ctx.callFunction(factory, ctx.undefined, hostLog, hostState));
    factory.dispose();
    hostLog.dispose();
    hostState.dispose();
    this.hooks = {
      inject: ctx.getProp(this.runners, 'inject'),
      predicate: ctx.getProp(this.runners, 'predicate'),
      decorate: ctx.getProp(this.runners, 'decorate'),
      wait: ctx.getProp(this.runners, 'wait'),
      svc: ctx.getProp(this.runners, 'svc'),
      result: ctx.getProp(this.runners, 'result'),
    };
  }

  private poll(): boolean {
    this.onPoll();
    if (this.interrupted === undefined && Date.now() >= this.deadline) this.interrupted = 'timeout';
    return this.interrupted !== undefined;
  }

  /**
   * The user's function, compiled once per source. A source that fails to evaluate is remembered
   * as a compile error, unless a bound stopped it (those depend on the call, not the source).
   */
  private compiled(message: RunMessage): QuickJSHandle | RunOutcome {
    const cached = this.functions.get(message.source);
    if (typeof cached === 'string') return { ok: false, timeout: false, kind: 'compile', message: cached };
    if (cached !== undefined) return cached;
    // Strict, like mountebank's eval inside its strict-mode modules.
    const result = this.context.evalCode(`'use strict';\n(${guardLoops(message.source)}\n)`, 'injected.js');
    if (result.error) {
      const failed = this.failure(message, result.error);
      if (failed.ok || failed.timeout || failed.kind !== 'runtime') return failed;
      this.remember(message.source, failed.message);
      return { ...failed, kind: 'compile' };
    }
    this.remember(message.source, result.value);
    return result.value;
  }

  private remember(source: string, entry: QuickJSHandle | string): void {
    if (this.functions.size >= MAX_FUNCTIONS) {
      const [oldest, handle] = this.functions.entries().next().value as [string, QuickJSHandle | string];
      if (typeof handle !== 'string') handle.dispose();
      this.functions.delete(oldest);
    }
    this.functions.set(source, entry);
  }

  run(message: RunMessage): RunOutcome {
    this.deadline = message.deadline;
    this.interrupted = undefined;
    this.storeFailed = false;
    if (Date.now() >= message.deadline) return timedOut(message);
    const ctx = this.context;
    const fn = this.compiled(message);
    if ('ok' in fn) return fn;
    const args: QuickJSHandle[] = [fn];
    const owned: QuickJSHandle[] = [];
    if (message.kind !== 'wait') owned.push(ctx.newString(message.request));
    if (message.kind === 'svc') owned.push(ctx.newString(message.meta ?? '{}'), ctx.newString(message.response ?? ''));
    if (message.kind === 'decorate') owned.push(ctx.newString(message.response ?? '{}'));
    args.push(...owned);
    this.current = message;
    const call = ctx.callFunction(this.hooks[message.kind], ctx.undefined, ...args);
    this.current = undefined;
    for (const handle of owned) handle.dispose();
    if (call.error) return this.failure(message, call.error);
    let settled = this.text(call.value);
    if (settled === TOO_LARGE) return RESULT_TOO_LARGE;
    if (settled === undefined) {
      // The script answers later (callback from a promise reaction, returned promise): run its jobs.
      if (this.runtime.hasPendingJob()) {
        const jobs = this.runtime.executePendingJobs();
        if (jobs.error) return this.failure(message, jobs.error);
        jobs.dispose();
      }
      const result = ctx.callFunction(this.hooks.result, ctx.undefined);
      if (result.error) return this.failure(message, result.error);
      settled = this.text(result.value);
      if (settled === TOO_LARGE) return RESULT_TOO_LARGE;
    }
    // The script caught the loop guard's error and finished before an interrupt poll stopped it.
    if (this.interrupted === 'loop-bound') return LOOP_BOUND_EXCEEDED;
    if (settled === undefined) {
      // Nothing left to run can call back later: no timers or I/O exist in the sandbox.
      return { ok: false, timeout: true, message: `${message.kind} never called its callback nor returned a value` };
    }
    return { ok: true, json: settled };
  }

  /**
   * A returned string, or undefined for "not settled yet"; the handle is released either way. Its
   * length is read first, so a result over the cap is never copied out of the sandbox.
   */
  private text(handle: QuickJSHandle): string | undefined | typeof TOO_LARGE {
    let value: string | undefined | typeof TOO_LARGE;
    if (this.context.typeof(handle) === 'string') {
      const length = this.context.getProp(handle, 'length');
      const tooLarge = this.context.getNumber(length) > MAX_SCRIPTED_BODY_BYTES;
      length.dispose();
      value = tooLarge ? TOO_LARGE : this.context.getString(handle);
    }
    handle.dispose();
    return value;
  }

  private failure(message: RunMessage, error: QuickJSHandle): RunOutcome {
    const text = describe(this.context, error);
    const threwNull = this.context.typeof(error) === 'object' && text === 'null';
    error.dispose();
    if (this.interrupted === 'timeout') return timedOut(message);
    if (this.interrupted === 'loop-bound') {
      return LOOP_BOUND_EXCEEDED;
    }
    if (/^InternalError: stack overflow/.test(text)) {
      return { ok: false, timeout: false, kind: 'recursion', message: 'recursion depth exceeded (stack overflow)' };
    }
    if (/^InternalError: out of memory/.test(text) || (threwNull && this.heapFull())) {
      return { ok: false, timeout: false, kind: 'memory', message: 'out of memory' };
    }
    // One error_type for a flow-store failure across engines (the Rhai engine's `backend`).
    return { ok: false, timeout: false, kind: this.storeFailed ? 'backend' : 'runtime', message: text };
  }

  dispose(): void {
    for (const handle of this.functions.values()) if (typeof handle !== 'string') handle.dispose();
    this.functions.clear();
    for (const handle of Object.values(this.hooks)) handle.dispose();
    this.runners.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }
}

const LOOP_BOUND_EXCEEDED: RunOutcome = {
  ok: false,
  timeout: false,
  kind: 'loop-bound',
  message: `loop bound exceeded (more than ${LOOP_ITERATIONS_PER_FRAME} iterations per call frame)`,
};

function timedOut(message: RunMessage): RunOutcome {
  return { ok: false, timeout: true, message: `${message.kind} script exceeded its ${message.timeoutMs} ms deadline` };
}

/** "Name: message" of a thrown value, without the stack. */
function describe(ctx: QuickJSContext, error: QuickJSHandle): string {
  let text: string;
  try {
    const dumped = ctx.dump(error) as unknown;
    if (dumped !== null && typeof dumped === 'object' && 'message' in dumped) {
      const { name, message } = dumped as { name?: unknown; message?: unknown };
      text = name ? `${String(name)}: ${String(message)}` : String(message);
    } else {
      text = typeof dumped === 'string' ? dumped : (JSON.stringify(dumped) ?? String(dumped));
    }
  } catch {
    text = 'unprintable error';
  }
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/** Every imposter's sandbox in this thread, on one QuickJS module whose whole heap stays under the limit. */
export class SandboxSet {
  private readonly scopes = new Map<number, ScopeSandbox>();
  private readonly heapFull: () => boolean;

  /** `onPoll` runs at every interrupt poll of a running script (well under a millisecond apart). */
  static async create(
    memoryLimitBytes = DEFAULT_MEMORY_LIMIT,
    onPoll: () => void = () => undefined,
    svcState: SvcStateCall = () => {
      throw new Error('ctx.state is not available');
    },
  ): Promise<SandboxSet> {
    const initial = BASE_MEMORY / WASM_PAGE;
    const maximum = initial + Math.ceil(memoryLimitBytes / WASM_PAGE);
    const memory = new WebAssembly.Memory({ initial, maximum });
    const module = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory }));
    return new SandboxSet(module, memoryLimitBytes, onPoll, memory, maximum * WASM_PAGE, svcState);
  }

  private constructor(
    private readonly module: QuickJSWASMModule,
    private readonly memoryLimitBytes: number,
    private readonly onPoll: () => void,
    memory: WebAssembly.Memory,
    maximumBytes: number,
    private readonly svcState: SvcStateCall,
  ) {
    // Allocations grow by doubling, so the one that fails can leave a tenth of the ceiling unused.
    this.heapFull = () => memory.buffer.byteLength >= maximumBytes * 0.9;
    this.memoryBytes = () => memory.buffer.byteLength;
  }

  /** The wasm memory the sandboxes hold (it never shrinks while the thread lives). */
  readonly memoryBytes: () => number;

  run(message: RunMessage): { outcome: RunOutcome; logs: LogLine[] } {
    let sandbox = this.scopes.get(message.scope);
    if (!sandbox) {
      sandbox = new ScopeSandbox(this.module, this.memoryLimitBytes, this.onPoll, this.heapFull, this.svcState);
      this.scopes.set(message.scope, sandbox);
    }
    sandbox.logs = [];
    const outcome = sandbox.run(message);
    const logs = sandbox.logs;
    sandbox.logs = [];
    if (!outcome.ok && !outcome.timeout && outcome.kind === 'memory') this.forget(message.scope);
    return { outcome, logs };
  }

  forget(scope: number): void {
    const sandbox = this.scopes.get(scope);
    if (!sandbox) return;
    this.scopes.delete(scope);
    sandbox.dispose();
  }

  close(): void {
    for (const scope of [...this.scopes.keys()]) this.forget(scope);
  }
}

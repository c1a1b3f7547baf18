/**
 * The main-thread side of `_svc.script` (SPEC §8): a small pool of worker threads running the
 * scripts, so a slow or looping script occupies a worker, never the event loop serving traffic.
 *
 * A script's `ctx.state` call arrives here as a message; the FlowStore answers asynchronously and
 * the answer goes back on the worker's state port, followed by an Atomics wake-up of the worker that
 * is blocked waiting for it. Any imposter's script may run on any worker: state lives in the
 * FlowStore, not in the worker.
 *
 * The deadline is enforced twice: inside the worker (the interpreter stops at it, and so does a wait
 * for the store) and here (the caller is answered with a timeout at the deadline regardless). A
 * worker still silent GRACE_MS after that is replaced.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { FlowStore } from '../../state/index.js';
import { ScriptError, ScriptTimeoutError, type JsScriptHost, type ScriptErrorKind } from '../js/index.js';
import { jsOutcomeOf } from './placement.js';
import type { ScriptEngineName } from './spec.js';
import { workerSpawner } from '../spawn-worker.js';
import type { LogLevel } from '../ctx.js';
import { StateChannel } from '../state-bridge.js';
import type { DoneMessage, RunMessage, RunOutcome, ScriptErrorType, ScriptInput, StateMessage, WorkerMessage } from './protocol.js';

const GRACE_MS = 1000;

export interface ScriptRun extends ScriptInput {
  engine: ScriptEngineName;
  /** The imposter (JavaScript sandboxes are per imposter). */
  scope: number;
  timeoutMs: number;
  store: FlowStore;
}

export interface SvcScriptRunnerOptions {
  /** Receives the script's `ctx.logger` / `print` lines. */
  log: (level: LogLevel, message: string) => void;
  /** Worker threads (default: min(2, available cores)). */
  workers?: number;
  /** The JavaScript sandbox host, for engine `javascript` (its own workers and deadline machinery). */
  javascript?: () => JsScriptHost;
}

const JS_ERRORS: Record<ScriptErrorKind, ScriptErrorType> = {
  compile: 'compile', runtime: 'runtime', 'loop-bound': 'limit', recursion: 'limit', memory: 'limit', host: 'host',
};

interface Pending {
  run: ScriptRun;
  resolve(outcome: RunOutcome): void;
  timer: NodeJS.Timeout;
  released: boolean;
  slot: Slot;
}

class Slot {
  readonly pending = new Map<number, Pending>();
  worker: Worker;
  state: StateChannel;

  constructor(private readonly spawn: () => [Worker, StateChannel], private readonly onMessage: (slot: Slot, message: WorkerMessage) => void,
    private readonly onExit: (slot: Slot, reason: string) => void) {
    [this.worker, this.state] = this.start();
  }

  private start(): [Worker, StateChannel] {
    const [worker, state] = this.spawn();
    worker.on('message', (message: WorkerMessage) => this.onMessage(this, message));
    worker.on('error', (err) => this.exited(worker, err.message));
    worker.on('exit', (code) => this.exited(worker, `exited with code ${code}`));
    worker.unref();
    return [worker, state];
  }

  private exited(worker: Worker, reason: string): void {
    if (worker !== this.worker) return;
    this.onExit(this, reason);
    this.state.close();
    [this.worker, this.state] = this.start();
  }

  post(message: RunMessage): void {
    this.worker.postMessage(message);
    this.worker.ref();
  }

  settled(): void {
    if (this.pending.size === 0) this.worker.unref();
  }

  /** Replaces a worker stuck past a deadline. */
  restart(): void {
    const worker = this.worker;
    this.state.close();
    [this.worker, this.state] = this.start();
    void worker.terminate();
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.state.close();
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}

export class SvcScriptRunner {
  private readonly slots: Slot[];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: SvcScriptRunnerOptions) {
    const spawnWorker = workerSpawner(import.meta.url, 'worker');
    const spawn = (): [Worker, StateChannel] => {
      const state = new StateChannel((message) => options.log('error', message));
      return [spawnWorker({ workerData: state.wiring, transferList: state.transferList }), state];
    };
    const count = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
    this.slots = Array.from({ length: count }, () => new Slot(spawn, (slot, m) => this.received(slot, m), (slot, reason) => this.lost(slot, reason)));
  }

  /** Runs a script; resolves with its outcome (never rejects): a timeout at the deadline at the latest. */
  run(run: ScriptRun): Promise<RunOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, errorType: 'host', message: 'script runner closed' });
    if (run.engine === 'javascript') return this.runJavaScript(run);
    const slot = this.slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
    const id = this.nextId++;
    const message: RunMessage = {
      type: 'run', id, source: run.source, placement: run.placement, request: run.request, flowId: run.flowId, stub: run.stub,
      deadline: Date.now() + run.timeoutMs,
    };
    if (run.response) message.response = run.response;
    return new Promise((resolve) => {
      const pending: Pending = { run, resolve, released: false, slot, timer: setTimeout(() => this.release(id, pending), run.timeoutMs) };
      slot.pending.set(id, pending);
      slot.post(message);
    });
  }

  private async runJavaScript(run: ScriptRun): Promise<RunOutcome> {
    if (!this.options.javascript) return { ok: false, errorType: 'host', message: 'the javascript engine is not available' };
    try {
      const value = await this.options.javascript().svc(run.scope, run.source, run, { timeoutMs: run.timeoutMs });
      return jsOutcomeOf(run.placement, value);
    } catch (err) {
      if (err instanceof ScriptTimeoutError) return { ok: false, errorType: 'timeout', message: err.message };
      if (err instanceof ScriptError) return { ok: false, errorType: JS_ERRORS[err.kind], message: err.message };
      return { ok: false, errorType: 'host', message: (err as Error)?.message ?? String(err) };
    }
  }

  private release(id: number, pending: Pending): void {
    pending.released = true;
    pending.resolve({ ok: false, errorType: 'timeout', message: `script exceeded its ${pending.run.timeoutMs} ms deadline` });
    pending.timer = setTimeout(() => {
      if (pending.slot.pending.get(id) !== pending) return;
      this.options.log('error', 'script worker unresponsive past a deadline; restarting it');
      this.lost(pending.slot, 'restarted');
      pending.slot.restart();
    }, GRACE_MS);
    pending.timer.unref();
  }

  private received(slot: Slot, message: WorkerMessage): void {
    if (message.type === 'state') this.state(slot, message);
    else this.done(slot, message);
  }

  private done(slot: Slot, { id, outcome, logs }: DoneMessage): void {
    for (const [level, text] of logs) this.options.log(level, text);
    const pending = slot.pending.get(id);
    if (!pending) return;
    slot.pending.delete(id);
    slot.settled();
    clearTimeout(pending.timer);
    if (!pending.released) pending.resolve(outcome);
  }

  private state(slot: Slot, message: StateMessage): void {
    const pending = slot.pending.get(message.id);
    slot.state.serve(pending && !pending.released ? pending.run.store : undefined, message);
  }

  /** The worker is gone: its runs fail as the host's fault, not the script's. */
  private lost(slot: Slot, reason: string): void {
    for (const pending of slot.pending.values()) {
      clearTimeout(pending.timer);
      if (!pending.released) pending.resolve({ ok: false, errorType: 'host', message: `script worker ${reason}` });
    }
    slot.pending.clear();
    slot.settled();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) this.lost(slot, 'closed');
    await Promise.all(this.slots.map((slot) => slot.stop()));
  }
}

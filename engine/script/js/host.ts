/**
 * The main-thread side of the JavaScript sandbox: a small pool of worker threads, each holding the
 * QuickJS sandboxes of the imposters assigned to it. An imposter (scope) sticks to one worker for
 * its lifetime, so its `state` lives in one place and its calls run in arrival order; a script
 * spinning until its deadline occupies only its worker, never the event loop serving traffic.
 *
 * piscina is not used: it hands each task to any idle worker, which would split an imposter's
 * state across threads. Calls cross as JSON text, not object graphs; the calls of one event-loop
 * turn go to a worker as one message, and its answers come back batched as well (measured on one
 * pinned core: one message per call each way cost ~2x the CPU per call).
 *
 * The deadline is enforced twice: inside the sandbox (interrupt handler) and here (a timer that
 * releases the caller with ScriptTimeoutError at the deadline even when the worker is busy). A
 * worker that still has not answered GRACE_MS after a released call is stuck in something the
 * interrupt cannot reach: it is replaced, and the imposters it held start over with fresh state.
 */
import { availableParallelism } from 'node:os';
import { format } from 'node:util';
import type { TransferListItem, Worker, WorkerOptions } from 'node:worker_threads';
import { CallTable, SharedCount, SharedQuiet, ThreadHost, workerSpawner, type LinkBoard, type Outbox } from '../../threads/index.js';
import { SCRIPT_WORKER_LIMITS, STARTUP_ALLOWANCE_MS, StateChannel, type StateMessage } from '../shared/index.js';
import type { FlowStore } from '../../state/index.js';
import type { Logger } from '../../log/index.js';
import { ScriptError, ScriptTimeoutError } from './errors.js';
import { DEFAULT_MEMORY_LIMIT, readReplies, WireBatch, type GrownMessage, type LogLine, type Reply, type RunMessage, type RunOutcome } from './protocol.js';
import type { ScriptRequest, ScriptResponse } from './types.js';
import { JsHookCalls, runMessage, type HookRun, type ScriptCallOptions, type SvcJsCall } from './hook-calls.js';

const GRACE_MS = 1000;

/** Function sources a worker is told about before they are forgotten and sent again. */
const MAX_SOURCES = 4096;

export interface JsScriptHostOptions {
  log: Logger;
  /** Worker threads started at once (default: min(2, available cores)). */
  workers?: number;
  /** The bound the pool grows to when a new imposter finds every worker busy (default: max(workers, 4)). */
  maxWorkers?: number;
  /** Heap ceiling of each worker's sandboxes (default 256 MiB). */
  memoryLimitBytes?: number;
  /** Per-core: engine threads reach the workers directly through these links (LinkedJsHost). */
  links?: LinkBoard;
  /** An imposter's flow store, for `ctx.state` of the runs engine threads post on their links. */
  storeOf?: (scope: number) => FlowStore | undefined;
}

export interface JsScriptHost {
  /** `_svc.script` with the JavaScript engine; resolves to the JSON value the script returned (result constructors are tagged `__svc`). */
  svc(scope: number, code: string, call: SvcJsCall, options?: ScriptCallOptions): Promise<unknown>;
  /** Response inject; resolves to what the function returned or passed to its callback. */
  inject(scope: number, source: string, request: ScriptRequest, options?: ScriptCallOptions): Promise<unknown>;
  /** Predicate inject; resolves to the truthiness of the function's result. */
  predicate(scope: number, source: string, request: ScriptRequest, options?: ScriptCallOptions): Promise<boolean>;
  /** decorate behavior; resolves to the returned response, or the one the function mutated in place. */
  decorate(scope: number, source: string, request: ScriptRequest, response: ScriptResponse, options?: ScriptCallOptions): Promise<unknown>;
  /** JavaScript `wait` behavior: `fn()` coerced to a number of milliseconds (NaN when not numeric). */
  wait(scope: number, source: string, request: ScriptRequest, options?: ScriptCallOptions): Promise<number>;
  /** Drops an imposter's sandbox and state (imposter deleted or replaced). */
  forget(scope: number): void;
  /**
   * The worker that owns the imposter's sandbox (placed now if it was not), for callers on other threads
   * that reach it through its link: it stays the owner, restarts included, until `forget`.
   */
  place(scope: number): number;
  /** Stops every worker; pending calls fail with ScriptError. */
  close(): Promise<void>;
}

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** Set once the caller was released at the deadline; the worker's late answer is then ignored. */
  released: boolean;
  /** Made while the worker was starting and not posted yet: its deadline starts when the worker is ready. */
  cold: boolean;
  timeoutMs: number;
  message: RunMessage;
  /** The worker slot the call was posted to (changes when a stuck worker is replaced). */
  slot: WorkerSlot;
  /** `_svc.script` runs: the flow store their `ctx.state` calls reach. */
  store?: FlowStore;
}

/** A worker's outcome for a call, as its caller hears it. */
export function answerCall(call: { resolve(value: unknown): void; reject(error: Error): void }, timeoutMs: number, outcome: RunOutcome): void {
  if (outcome.ok) {
    call.resolve(outcome.json === '' ? undefined : JSON.parse(outcome.json));
  } else if (outcome.timeout) {
    call.reject(new ScriptTimeoutError(timeoutMs, outcome.message));
  } else {
    call.reject(new ScriptError(outcome.message, outcome.kind));
  }
}

/** A script's `logger` lines, written to the engine log prefixed `svc::script`. */
export function writeScriptLogs(log: Pick<Logger, 'isEnabled' | LogLine[0]>, lines: LogLine[]): void {
  for (const [level, args] of lines) {
    if (log.isEnabled(level)) log[level](`svc::script ${format(...args)}`);
  }
}

/** What the host sends a sandbox worker: a run, or an imposter to forget. */
export type SandboxItem = { run: RunMessage } | { forget: number };

/**
 * A batch for one sandbox worker as WireBatch text, teaching the worker each function source once (by
 * number). One per thread: a restarted thread knows no sources, and ThreadHost starts a new outbox.
 */
export class SandboxOutbox implements Outbox<SandboxItem> {
  private readonly batch = new WireBatch();
  private readonly sources = new Map<string, number>();

  add(item: SandboxItem): void {
    if ('forget' in item) {
      this.batch.forget(item.forget);
      return;
    }
    const { run } = item;
    let sourceId = this.sources.get(run.source);
    if (sourceId === undefined) {
      if (this.sources.size >= MAX_SOURCES) {
        this.sources.clear();
        this.batch.forgetSources();
      }
      sourceId = this.sources.size;
      this.sources.set(run.source, sourceId);
      this.batch.source(sourceId, run.source);
    }
    this.batch.run(run, sourceId);
  }

  get empty(): boolean {
    return this.batch.empty;
  }

  take(): string {
    return this.batch.take();
  }
}

/** One sandbox worker (its lifecycle, heartbeat and restarts: ThreadHost) and the calls it owes. */
class WorkerSlot {
  readonly pending = new CallTable<PendingCall>();
  scopes = 0;
  /** The next thread takes over calls engine threads still wait for (a stuck or grown thread was replaced, not a crashed one). */
  retryNext = false;
  /** Calls engine threads made on their links and wait for (per-core). */
  readonly linkedCalls = new SharedCount();
  /** Until when engine threads' calls may keep the worker silent. */
  readonly linkedQuiet = new SharedQuiet();
  /** `_svc.script` ctx.state answers for the current thread (a new channel per thread). */
  private state: StateChannel | undefined;
  /** The current worker said it grew past its memory bound: it is replaced once it owes no answer. */
  grown = false;
  readonly thread: ThreadHost<SandboxItem>;
  /** What waits for the current worker to be ready (calls made while it starts). */
  private readonly readyWaiters: Array<() => void> = [];

  constructor(
    readonly id: number,
    spawn: (options: WorkerOptions) => Worker,
    workerData: (state: StateChannel) => { workerData: Record<string, unknown>; transferList: TransferListItem[] },
    log: Logger,
    onReply: (slot: WorkerSlot, reply: Reply) => void,
    onLost: (slot: WorkerSlot, reason: string) => void,
    onGrown: (slot: WorkerSlot) => void,
    onStart: (slot: WorkerSlot, worker: Worker, generation: number) => void,
    storeOf: (scope: number) => FlowStore | undefined,
  ) {
    this.thread = new ThreadHost<SandboxItem>({
      name: 'script worker',
      kind: 'sandbox',
      spawn,
      lazy: true,
      starting: () => {
        this.grown = false;
        this.state?.close();
        this.state = new StateChannel((message) => log.error(`svc::script ${message}`));
        return workerData(this.state);
      },
      onStart: (generation, worker) => onStart(this, worker, generation),
      onReady: () => {
        for (const go of this.readyWaiters.splice(0)) go();
      },
      log: (message) => log.error(message),
      // The calls of one event-loop turn go as one message: one wake-up of the worker per turn.
      batch: 'turn',
      outbox: () => new SandboxOutbox(),
      receive: (batch) => {
        if (typeof batch !== 'string' && (batch as GrownMessage).type === 'grown') {
          this.grown = true;
          onGrown(this);
          return;
        }
        if (typeof batch !== 'string') {
          const message = batch as StateMessage;
          const call = message.scope === undefined ? this.pending.get(message.id) : undefined;
          this.state?.serve(message.scope !== undefined ? storeOf(message.scope) : call && !call.released ? call.store : undefined, message);
          return;
        }
        for (const reply of readReplies(batch)) onReply(this, reply);
      },
      // The old state channel is closed by `starting` (a restart may already have begun).
      onLost: (reason) => onLost(this, `script worker ${reason}`),
      // Calls may run until their deadlines (the host's grace watch covers them); the sandbox beats at interrupt polls too.
      quietUntil: () => {
        let until = this.linkedQuiet.value;
        for (const call of this.pending.values()) until = Math.max(until, call.message.deadline + GRACE_MS);
        return until;
      },
    });
  }

  /** Runs `go` once the worker, not ready now, is ready, starting it if it is not running. */
  whenReady(go: () => void): void {
    this.readyWaiters.push(go);
    this.thread.wake();
  }

  run(message: RunMessage): void {
    this.thread.post({ run: message });
    this.holdProcess();
  }

  forget(scope: number): void {
    if (this.thread.worker) this.thread.post({ forget: scope });
  }

  /** A worker keeps the process alive only while it owes an answer. */
  holdProcess(): void {
    if (this.pending.size > 0) this.thread.ref();
    else this.thread.unref();
  }

  async stop(): Promise<void> {
    await this.thread.stop();
    this.state?.close();
  }
}

/** The pool's growth bound when `maxWorkers` is not given (each worker holds a QuickJS heap). */
const DEFAULT_MAX_WORKERS = 4;

class WorkerScriptHost extends JsHookCalls implements JsScriptHost {
  private readonly slots: WorkerSlot[];
  private readonly newSlot: () => WorkerSlot;
  private readonly maxWorkers: number;
  private readonly assigned = new Map<number, WorkerSlot>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: JsScriptHostOptions) {
    super();
    const count = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
    const spawn = workerSpawner(import.meta.url, 'worker', { resourceLimits: SCRIPT_WORKER_LIMITS });
    const memoryLimitBytes = options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT;
    const workerData = (state: StateChannel) => ({ workerData: { memoryLimitBytes, state: state.wiring }, transferList: state.transferList });
    const onReply = (slot: WorkerSlot, reply: Reply) => this.settle(slot, reply);
    const onLost = (slot: WorkerSlot, reason: string) => this.lost(slot, reason);
    const onStart = (slot: WorkerSlot, worker: Worker, generation: number) => this.announce(slot, worker, generation);
    let slotId = 0;
    const storeOf = (scope: number) => options.storeOf?.(scope);
    this.newSlot = () => new WorkerSlot(slotId++, spawn, workerData, options.log, onReply, onLost, (slot) => this.replaceIfGrown(slot), onStart, storeOf);
    this.maxWorkers = Math.max(count, options.maxWorkers ?? DEFAULT_MAX_WORKERS);
    this.slots = Array.from({ length: count }, this.newSlot);
  }

  forget(scope: number): void {
    const slot = this.assigned.get(scope);
    if (!slot) return;
    this.assigned.delete(scope);
    slot.scopes -= 1;
    slot.forget(scope);
  }

  place(scope: number): number {
    const slot = this.slotFor(scope);
    slot.thread.wake();
    return slot.id;
  }

  /** A thread started: engine threads get links to it (per-core). */
  private announce(slot: WorkerSlot, worker: Worker, generation: number): void {
    const links = this.options.links;
    if (!links) return;
    const offer = { pool: 'js', worker: slot.id, generation, retry: slot.retryNext, owed: slot.linkedCalls.buffer, quiet: slot.linkedQuiet.buffer };
    slot.retryNext = false;
    links.provide(
      offer,
      (port) => worker.postMessage({ link: port }, [port]),
      (reported) => {
        if (reported === slot.thread.generation && slot.thread.ready) this.restart(slot);
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) this.failAll(slot, 'script host closed');
    this.assigned.clear();
    await Promise.all(this.slots.map((slot) => slot.stop()));
  }

  /**
   * The imposter's worker: fixed once chosen (its state lives there). A new imposter goes to an idle
   * worker holding the fewest imposters, so it does not queue behind another imposter's slow script;
   * when every worker is busy the pool grows (up to `maxWorkers`), else the least loaded is shared.
   */
  private slotFor(scope: number): WorkerSlot {
    let slot = this.assigned.get(scope);
    if (!slot) {
      let candidates = this.slots.filter((s) => s.pending.size === 0 && s.linkedCalls.value === 0);
      if (candidates.length === 0 && this.slots.length < this.maxWorkers) {
        const added = this.newSlot();
        this.slots.push(added);
        candidates = [added];
      }
      if (candidates.length === 0) candidates = this.slots;
      slot = candidates.reduce((best, s) => (s.scopes < best.scopes ? s : best));
      slot.scopes += 1;
      this.assigned.set(scope, slot);
    }
    return slot;
  }

  protected run(hook: HookRun): Promise<unknown> {
    if (this.closed) return Promise.reject(new ScriptError('script host closed', 'host'));
    const slot = this.slotFor(hook.scope);
    if (slot.thread.down) return Promise.reject(new ScriptError('script worker keeps dying at start', 'host'));
    const id = this.nextId++;
    const message = runMessage(id, hook);
    const { timeoutMs } = hook;
    return new Promise((resolve, reject) => {
      const cold = !slot.thread.ready;
      const call: PendingCall = {
        resolve,
        reject,
        released: false,
        cold,
        timeoutMs,
        message,
        slot,
        timer: setTimeout(() => this.release(call), cold ? timeoutMs + STARTUP_ALLOWANCE_MS : timeoutMs),
        store: hook.svc?.store,
      };
      slot.pending.set(id, call);
      if (!cold) {
        slot.run(message);
        return;
      }
      // The worker is starting (a cold start on a loaded machine takes seconds): the call is posted,
      // and its deadline starts, once the worker is ready.
      slot.whenReady(() => {
        if (call.slot.pending.get(id) !== call || !call.cold) return;
        call.cold = false;
        clearTimeout(call.timer);
        message.deadline = Date.now() + timeoutMs;
        call.timer = setTimeout(() => this.release(call), timeoutMs);
        call.slot.run(message);
      });
    });
  }

  /** The deadline passed without an answer: free the caller now, and watch the worker. */
  private release(call: PendingCall): void {
    if (call.released) return;
    call.released = true;
    call.reject(new ScriptTimeoutError(call.timeoutMs));
    if (call.cold) {
      // Never posted (the worker did not get ready in time): nothing to watch.
      call.slot.pending.delete(call.message.id);
      call.slot.holdProcess();
      return;
    }
    this.watchReleased(call);
  }

  /** A worker still silent GRACE_MS after a released call is stuck, unless it is still starting (a cold start on a loaded machine takes seconds). */
  private watchReleased(call: PendingCall): void {
    call.timer = setTimeout(() => {
      if (call.slot.pending.get(call.message.id) !== call) return;
      if (call.slot.thread.ready) this.restart(call.slot);
      else this.watchReleased(call);
    }, GRACE_MS);
    call.timer.unref();
  }

  private settle(slot: WorkerSlot, { id, outcome, logs }: Reply): void {
    if (logs) this.writeLogs(logs);
    const call = slot.pending.get(id);
    if (!call) return;
    slot.pending.delete(id);
    slot.holdProcess();
    clearTimeout(call.timer);
    if (!call.released) this.answer(call, outcome);
    this.replaceIfGrown(slot);
  }

  /**
   * A worker that grew past its memory bound (a QuickJS heap never shrinks) is replaced once it owes
   * no answer; like a restart, its imposters start over with fresh state on their next call.
   */
  private replaceIfGrown(slot: WorkerSlot): void {
    if (!slot.grown || slot.pending.size > 0 || this.closed) return;
    this.options.log.warn('script worker memory grew past its bound; replacing it (its imposters start with fresh state)');
    // Its imposters are placed again by onLost; the new thread starts with the next call.
    slot.retryNext = true;
    slot.thread.restart('grew past its memory bound', false);
  }

  private answer(call: PendingCall, outcome: RunOutcome): void {
    answerCall(call, call.timeoutMs, outcome);
  }

  private writeLogs(lines: LogLine[]): void {
    writeScriptLogs(this.options.log, lines);
  }

  /**
   * A worker ignored a deadline by more than GRACE_MS: replace it. Calls that were only queued
   * behind the stuck one go to the fresh worker with their original deadlines.
   */
  private restart(slot: WorkerSlot): void {
    const queued = [...slot.pending.values()].filter((call) => !call.released);
    for (const call of slot.pending.values()) clearTimeout(call.timer);
    slot.pending.clear();
    slot.retryNext = true;
    slot.thread.restart('unresponsive past a deadline (its imposters lose their state)');
    for (const call of queued) {
      call.cold = false;
      call.slot = this.slotFor(call.message.scope);
      call.timer = setTimeout(() => this.release(call), Math.max(0, call.message.deadline - Date.now()));
      call.slot.pending.set(call.message.id, call);
      call.slot.run(call.message);
    }
  }

  /** The worker is gone: its calls fail and its imposters will be placed again on their next call. */
  private lost(slot: WorkerSlot, reason: string): void {
    this.failAll(slot, reason);
    if (this.options.links) {
      // Engine threads reach these imposters on this worker by link: they stay here, and it starts again now.
      if (slot.scopes > 0 && !this.closed) slot.thread.wake();
      return;
    }
    for (const [scope, owner] of this.assigned) if (owner === slot) this.assigned.delete(scope);
    slot.scopes = 0;
  }

  private failAll(slot: WorkerSlot, reason: string): void {
    for (const call of slot.pending.values()) {
      clearTimeout(call.timer);
      if (!call.released) call.reject(new ScriptError(reason, 'host'));
    }
    slot.pending.clear();
  }
}

export function createJsScriptHost(options: JsScriptHostOptions): JsScriptHost {
  return new WorkerScriptHost(options);
}

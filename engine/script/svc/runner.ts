/**
 * The main-thread side of `_svc.script` (docs/limits.md): a pool of worker threads running the scripts,
 * so a slow or looping script occupies a worker, never the event loop serving traffic.
 *
 * A worker serves one imposter's runs at a time; runs wait in one queue here. A slow script must not
 * stall other imposters' scripts, so the pool grows on demand: when a run has waited STALL_MS with
 * every worker busy, another worker starts (up to `maxWorkers`), and a worker beyond the base count
 * that stays idle for IDLE_MS stops. An imposter holds at most `workers` (the base count) workers at
 * once, so one imposter's loops cannot take every worker of the grown pool either. The runs of one
 * imposter that wait when a worker is claimed go to it together (up to MAX_BATCH), one after another
 * there, and their answers come back together: under load a run costs one hop between threads per
 * batch, not two per run. They would wait for that imposter's share just the same in the queue.
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
import type { Worker, WorkerOptions } from 'node:worker_threads';
import type { FlowStore } from '../../state/index.js';
import { ScriptError, ScriptTimeoutError, type JsScriptHost, type ScriptErrorKind } from '../js/index.js';
import { jsOutcomeOf } from './placement.js';
import type { ScriptEngineName } from './spec.js';
import { CallTable, SharedCount, SharedQuiet, ThreadHost, WaitingThreads, workerSpawner, type LinkBoard } from '../../threads/index.js';
import { SCRIPT_WORKER_LIMITS, type LogLevel, StateChannel } from '../shared/index.js';
import type { DoneMessage, RunMessage, RunOutcome, ScriptErrorType, ScriptInput, StateMessage, WorkerMessage } from './protocol.js';
import { errorText } from '../../model/index.js';

const GRACE_MS = 1000;
/** How long a run waits behind busy workers before the pool grows (linked.ts: before main is told). */
export const STALL_MS = 50;
/** How long a worker beyond the base count stays idle before it stops. */
const IDLE_MS = 30_000;
/** The pool's growth bound when `maxWorkers` is not given. */
const DEFAULT_MAX_WORKERS = 8;
/** How often waiting runs look again for a worker another thread may have freed (per-core). */
export const POLL_MS = 5;
/** The most runs of one imposter posted to a worker at once. */
const MAX_BATCH = 16;

/**
 * The queued runs of one imposter from position `from` on (the first is there), up to MAX_BATCH, taken
 * out of `queue` in their order: what a claimed worker is given (this runner and engine threads' linked ones).
 */
export function takeBatch<T>(queue: T[], from: number, scopeOf: (queued: T) => number): T[] {
  const scope = scopeOf(queue[from]!);
  const batch: T[] = [];
  for (let i = from; i < queue.length && batch.length < MAX_BATCH; ) {
    if (scopeOf(queue[i]!) === scope) batch.push(...queue.splice(i, 1));
    else i++;
  }
  return batch;
}

export interface ScriptRun extends ScriptInput {
  engine: ScriptEngineName;
  /** The imposter (JavaScript sandboxes are per imposter; Rhai workers are shared fairly between imposters). */
  scope: number;
  timeoutMs: number;
  store: FlowStore;
}

export interface SvcScriptRunnerOptions {
  /** Receives the script's `ctx.logger` / `print` lines. */
  log: (level: LogLevel, message: string) => void;
  /** Base worker threads, always kept, and the scripts one imposter may run at once (default: min(2, available cores)). */
  workers?: number;
  /** The bound the pool grows to while scripts wait behind busy workers (default: max(workers, 8)). */
  maxWorkers?: number;
  /** The JavaScript sandbox host, for engine `javascript` (its own workers and deadline machinery). */
  javascript?: () => JsScriptHost;
  /** Per-core: engine threads reach the workers directly through these links (LinkedSvcRunner). */
  links?: LinkBoard;
  /** An imposter's flow store, for `ctx.state` of the runs engine threads post on their links. */
  storeOf?: (scope: number) => FlowStore | undefined;
}

/** What runs `_svc.script`s for an imposter: this runner on main, a LinkedSvcRunner on an engine thread. */
export interface ScriptRunner {
  run(run: ScriptRun): Promise<RunOutcome>;
}

/** The worker's `run` message for a Rhai script (main's runner and an engine thread's linked one send the same). */
export function runMessage(run: ScriptRun, id: number, deadline: number): RunMessage {
  const message: RunMessage = {
    type: 'run',
    id,
    source: run.source,
    placement: run.placement,
    request: run.request,
    flowId: run.flowId,
    stub: run.stub,
    deadline,
  };
  if (run.response) message.response = run.response;
  return message;
}

/** A `_svc.script` with the JavaScript engine, on `host`'s sandbox for the imposter (never rejects). */
export async function runJavaScript(host: JsScriptHost | undefined, run: ScriptRun): Promise<RunOutcome> {
  if (!host) return { ok: false, errorType: 'host', message: 'the javascript engine is not available' };
  try {
    const value = await host.svc(run.scope, run.source, run, { timeoutMs: run.timeoutMs });
    return jsOutcomeOf(run.placement, value);
  } catch (err) {
    if (err instanceof ScriptTimeoutError) return { ok: false, errorType: 'timeout', message: err.message };
    if (err instanceof ScriptError) return { ok: false, errorType: JS_ERRORS[err.kind], message: err.message };
    return { ok: false, errorType: 'host', message: errorText(err) };
  }
}

const JS_ERRORS: Record<ScriptErrorKind, ScriptErrorType> = {
  compile: 'compile',
  runtime: 'runtime',
  'loop-bound': 'limit',
  recursion: 'limit',
  memory: 'limit',
  'too-large': 'limit',
  backend: 'backend',
  host: 'host',
};

interface Pending {
  id: number;
  run: ScriptRun;
  message: RunMessage;
  resolve(outcome: RunOutcome): void;
  timer: NodeJS.Timeout;
  released: boolean;
  /** The worker running it; unset while queued. */
  slot?: Slot;
}

/** One worker thread of the pool (its lifecycle, heartbeat and restarts: ThreadHost) and the run it holds. */
class Slot {
  /** The next thread takes over runs engine threads still wait for (a stuck or grown thread was replaced, not a crashed one). */
  retryNext = false;
  /** A run from an engine thread grew the worker past its memory bound: replaced once main's batch is done. */
  grownByLink = false;
  /**
   * 1 while a batch is posted to it, from this runner or an engine thread's link (claimed with tryClaim(1) by
   * whichever thread posts): a worker serves one batch at a time, and every thread dispatches by it.
   */
  readonly busy = new SharedCount();
  /** Until when engine threads' runs may keep the worker silent. */
  readonly linkedQuiet = new SharedQuiet();
  /** This runner's batch in progress (one imposter's runs), by run id. */
  readonly runs = new CallTable<Pending>();
  /** The imposter whose share the batch holds. */
  scope = 0;
  /** The latest deadline of the batch's runs. */
  private lastDeadline = 0;
  /** A run of the batch grew the worker past its memory bound: replaced once the batch is done. */
  grown = false;
  /** `ctx.state` answers for the current thread (a new channel per thread). */
  state!: StateChannel;
  /** Stops a grown worker that stayed idle. */
  idleTimer: NodeJS.Timeout | undefined;
  readonly thread: ThreadHost<RunMessage>;

  constructor(
    readonly id: number,
    spawn: (options: WorkerOptions) => Worker,
    log: (message: string) => void,
    onMessage: (slot: Slot, message: WorkerMessage | { type: 'grown' }) => void,
    onReady: () => void,
    onLost: (slot: Slot, reason: string) => void,
    onGiveUp: () => void,
    onStart: (slot: Slot, worker: Worker, generation: number) => void,
  ) {
    this.thread = new ThreadHost<RunMessage>({
      name: 'script worker',
      kind: 'script',
      spawn,
      starting: () => {
        this.state?.close();
        this.state = new StateChannel((message) => log(message));
        return { workerData: { ...this.state.wiring }, transferList: this.state.transferList };
      },
      onStart: (generation, worker) => onStart(this, worker, generation),
      log,
      receive: (message) => onMessage(this, message as WorkerMessage | { type: 'grown' }),
      onReady,
      onLost: (reason) => onLost(this, reason),
      onGiveUp,
      // A script may run (or wait for the store) until its deadline; the runner's grace watch covers it.
      quietUntil: () => Math.max(this.linkedQuiet.value, this.runs.size > 0 ? this.lastDeadline + GRACE_MS : 0),
    });
  }

  /** The current worker has started (a run posted before then waits for the start, not for a script). */
  get ready(): boolean {
    return this.thread.ready;
  }

  /** One imposter's runs, posted together (the thread host sends a task's posts as one message). */
  post(scope: number, batch: Pending[]): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.scope = scope;
    this.lastDeadline = 0;
    for (const pending of batch) {
      this.runs.set(pending.id, pending);
      pending.slot = this;
      this.lastDeadline = Math.max(this.lastDeadline, pending.message.deadline);
      this.thread.post(pending.message);
    }
    this.thread.ref();
  }

  settled(): void {
    this.runs.clear();
    this.grown = false;
    this.thread.unref();
  }

  /** Replaces a worker stuck past a deadline (logged), or one that grew past its memory bound (routine, not logged). */
  restart(reason: string, logged = true): void {
    this.grownByLink = false;
    this.thread.restart(reason, logged);
  }

  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    await this.thread.stop();
    this.state.close();
  }
}

export class SvcScriptRunner {
  private readonly slots: Slot[] = [];
  /** Runs waiting for a worker, in arrival order. */
  private readonly queue: Pending[] = [];
  /** Scripts running per imposter, on every thread (engine threads claim from the same counts). */
  private readonly running = new Map<number, SharedCount>();
  /** A dispatch retry while runs wait for workers engine threads hold (they free them without telling main). */
  private pollTimer: NodeJS.Timeout | undefined;
  /** Threads (this runner, engine threads' linked runners) whose runs wait while they hold no worker (per-core). */
  private readonly waiters = new WaitingThreads();
  /** Workers holding a batch of this runner's. */
  private holding = 0;
  private readonly baseWorkers: number;
  private readonly maxWorkers: number;
  private readonly newSlot: () => Slot;
  private growTimer: NodeJS.Timeout | undefined;
  private nextId = 1;
  private closed = false;
  /** Workers keep dying at start: runs fail at once. */
  private down = false;

  constructor(private readonly options: SvcScriptRunnerOptions) {
    const spawn = workerSpawner(import.meta.url, 'worker', { resourceLimits: SCRIPT_WORKER_LIMITS });
    const log = (message: string): void => options.log('error', message);
    this.baseWorkers = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
    this.maxWorkers = Math.max(this.baseWorkers, options.maxWorkers ?? DEFAULT_MAX_WORKERS);
    let slotId = 0;
    this.newSlot = () =>
      new Slot(
        slotId++,
        spawn,
        log,
        (slot, m) => this.received(slot, m),
        // Runs that waited while it started may now be waiting on scripts.
        () => this.queue.length > 0 && this.dispatch(),
        (slot, reason) => this.lost(slot, reason),
        () => this.broken(),
        (slot, worker, generation) => this.announce(slot, worker, generation),
      );
    for (let i = 0; i < this.baseWorkers; i++) this.slots.push(this.newSlot());
    options.links?.onStall('rhai', () => this.stalled());
  }

  /** Runs a script; resolves with its outcome (never rejects): a timeout at the deadline at the latest. */
  run(run: ScriptRun): Promise<RunOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, errorType: 'host', message: 'script runner closed' });
    if (run.engine === 'javascript') return this.runJavaScript(run);
    if (this.down) return Promise.resolve({ ok: false, errorType: 'host', message: 'script workers cannot start' });
    const id = this.nextId++;
    const message = runMessage(run, id, Date.now() + run.timeoutMs);
    return new Promise((resolve) => {
      const pending: Pending = { id, run, message, resolve, released: false, timer: setTimeout(() => this.release(pending), run.timeoutMs) };
      this.queue.push(pending);
      this.dispatch();
    });
  }

  private runJavaScript(run: ScriptRun): Promise<RunOutcome> {
    return runJavaScript(this.options.javascript?.(), run);
  }

  /** A worker started: engine threads get links to it (per-core). */
  private announce(slot: Slot, worker: Worker, generation: number): void {
    const links = this.options.links;
    if (!links) return;
    const offer = {
      pool: 'rhai',
      worker: slot.id,
      generation,
      retry: slot.retryNext,
      owed: slot.busy.buffer,
      quiet: slot.linkedQuiet.buffer,
      waiting: this.waiters.buffer,
    };
    slot.retryNext = false;
    links.provide(
      offer,
      (port) => worker.postMessage({ link: port }, [port]),
      (reported) => {
        if (reported !== slot.thread.generation || !slot.ready) return;
        slot.retryNext = true;
        slot.restart('unresponsive past a deadline');
      },
    );
  }

  /** An imposter's running-scripts count, shared with the engine threads that run its scripts (its plan carries it). */
  shareOf(scope: number): { count: SharedArrayBuffer; limit: number } {
    return { count: this.runningOf(scope).buffer, limit: this.baseWorkers };
  }

  private runningOf(scope: number): SharedCount {
    let count = this.running.get(scope);
    if (!count) {
      count = new SharedCount();
      this.running.set(scope, count);
    }
    return count;
  }

  /** Starts queued runs on idle workers, oldest first, skipping imposters already at their share. */
  private dispatch(): void {
    let waiting = false;
    let held = false;
    for (let i = 0; i < this.queue.length; ) {
      const pending = this.queue[i]!;
      const running = this.runningOf(pending.run.scope);
      if (running.value >= this.baseWorkers) {
        held = true;
        i++;
        continue;
      }
      const slot = this.slots.find((s) => !s.thread.down && s.busy.tryClaim(1));
      if (!slot) {
        waiting = true;
        break;
      }
      if (!running.tryClaim(this.baseWorkers)) {
        slot.busy.release();
        held = true;
        i++;
        continue;
      }
      slot.post(
        pending.run.scope,
        takeBatch(this.queue, i, (queued) => queued.run.scope),
      );
      this.holding++;
    }
    if (waiting) this.growSoon();
    if (this.links) {
      // Starved only while holding no worker: runs behind this runner's own batch go in its next one.
      this.waiters.set((waiting || held) && this.holding === 0);
      if (waiting || held) this.pollSoon();
    }
  }

  private get links(): LinkBoard | undefined {
    return this.options.links;
  }

  /** Engine threads free workers and shares without telling main: look again shortly while runs wait. */
  private pollSoon(): void {
    if (this.pollTimer || this.closed) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      this.dispatch();
    }, POLL_MS);
  }

  /** An engine thread's runs wait behind busy workers (per-core): grow as for this runner's own. */
  stalled(): void {
    this.growSoon(true);
  }

  /**
   * Every worker is busy while a run could start: unless one frees up within STALL_MS, add one.
   * Workers still starting do not count as stalled (a burst at startup must not spawn a crowd).
   */
  private growSoon(elsewhere = false): void {
    if (this.growTimer || this.slots.length >= this.maxWorkers) return;
    this.growTimer = setTimeout(() => {
      this.growTimer = undefined;
      if (this.closed || this.slots.length >= this.maxWorkers || this.slots.some((s) => s.busy.value === 0 || !s.ready)) return;
      if (!elsewhere && !this.queue.some((p) => this.runningOf(p.run.scope).value < this.baseWorkers)) return;
      this.slots.push(this.newSlot());
      this.dispatch();
    }, STALL_MS);
    this.growTimer.unref();
  }

  /** A worker finished a batch: the next one starts, or a grown worker that stays idle is stopped. */
  private freed(slot: Slot): void {
    const scope = slot.scope;
    this.holding--;
    slot.settled();
    slot.busy.release();
    this.runningOf(scope).release();
    // Another thread's runs wait: it takes the worker at its next look, not this runner again at once.
    if (this.waiters.others > 0) this.pollSoon();
    else this.dispatch();
    if (slot.runs.size === 0 && this.slots.indexOf(slot) >= this.baseWorkers) {
      slot.idleTimer = setTimeout(() => this.retire(slot), IDLE_MS);
      slot.idleTimer.unref();
    }
  }

  private retire(slot: Slot): void {
    // Claimed for good: no thread posts to a worker that is going.
    if (this.closed || !slot.busy.tryClaim(1)) return;
    this.slots.splice(this.slots.indexOf(slot), 1);
    this.options.links?.withdraw('rhai', slot.id);
    void slot.stop();
  }

  private release(pending: Pending): void {
    pending.released = true;
    pending.resolve({ ok: false, errorType: 'timeout', message: `script exceeded its ${pending.run.timeoutMs} ms deadline` });
    const queued = this.queue.indexOf(pending);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      return;
    }
    this.watchReleased(pending);
  }

  /** A worker still silent GRACE_MS after a released run is stuck, unless it is still starting (a cold start on a loaded machine takes seconds). */
  private watchReleased(pending: Pending): void {
    pending.timer = setTimeout(() => {
      const slot = pending.slot;
      if (!slot?.runs.has(pending.id)) return;
      if (!slot.ready) {
        this.watchReleased(pending);
        return;
      }
      slot.retryNext = true;
      slot.restart('unresponsive past a deadline');
    }, GRACE_MS);
    pending.timer.unref();
  }

  /** A worker keeps dying at start: its slot goes, and with it every run waiting (they would wait in vain). */
  private broken(): void {
    this.down = true;
    for (const pending of this.queue.splice(0)) {
      clearTimeout(pending.timer);
      if (!pending.released) pending.resolve({ ok: false, errorType: 'host', message: 'script workers cannot start' });
    }
  }

  private received(slot: Slot, message: WorkerMessage | { type: 'grown' }): void {
    if (Array.isArray(message)) {
      this.done(slot, message);
    } else if (message.type === 'grown') {
      slot.grownByLink = true;
      // Only while no thread has a run posted to it; else at the end of this runner's next batch there.
      if (slot.busy.tryClaim(1)) {
        this.replaceGrown(slot);
        slot.busy.release();
      }
    } else {
      this.state(slot, message);
    }
  }

  private done(slot: Slot, answers: DoneMessage[]): void {
    for (const { id, outcome, logs, grown } of answers) {
      for (const [level, text] of logs) this.options.log(level, text);
      const pending = slot.runs.get(id);
      if (!pending) continue;
      slot.runs.delete(id);
      clearTimeout(pending.timer);
      if (!pending.released) pending.resolve(outcome);
      if (grown) slot.grown = true;
    }
    if (slot.runs.size > 0) return;
    if (slot.grown || slot.grownByLink) {
      // A grown heap is only given back to the system with its thread: the next batch gets a fresh one
      // (the slot holds no run while it is replaced, so nothing fails).
      slot.settled();
      this.replaceGrown(slot);
    }
    this.freed(slot);
  }

  /** Engine threads' runs still owed by the grown thread go to its successor. */
  private replaceGrown(slot: Slot): void {
    slot.retryNext = true;
    slot.restart('grew past its memory bound', false);
  }

  private state(slot: Slot, message: StateMessage): void {
    if (message.scope !== undefined) {
      slot.state.serve(this.options.storeOf?.(message.scope), message);
      return;
    }
    const pending = slot.runs.get(message.id);
    slot.state.serve(pending && !pending.released ? pending.run.store : undefined, message);
  }

  /** The worker is gone (and already replaced): its runs fail as the host's fault, not the scripts'. */
  private lost(slot: Slot, reason: string): void {
    if (slot.runs.size === 0) return;
    for (const pending of slot.runs.values()) {
      clearTimeout(pending.timer);
      if (!pending.released) pending.resolve({ ok: false, errorType: 'host', message: `script worker ${reason}` });
    }
    if (!this.closed) this.freed(slot);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.growTimer);
    clearTimeout(this.pollTimer);
    this.waiters.set(false);
    for (const pending of this.queue.splice(0)) {
      clearTimeout(pending.timer);
      if (!pending.released) pending.resolve({ ok: false, errorType: 'host', message: 'script runner closed' });
    }
    for (const slot of this.slots) this.lost(slot, 'closed');
    await Promise.all(this.slots.map((slot) => slot.stop()));
  }
}

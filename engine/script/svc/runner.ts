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
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { FlowStore } from '../../state/index.js';
import { workerSpawner } from '../spawn-worker.js';
import type { LogLevel, StateOp } from './ctx.js';
import type { DoneMessage, Placement, RunMessage, RunOutcome, ScriptRequestData, ScriptResponseData, StateMessage, StubInfo, WorkerMessage } from './protocol.js';

const GRACE_MS = 1000;

export interface ScriptRun {
  source: string;
  placement: Placement;
  request: ScriptRequestData;
  response?: ScriptResponseData;
  flowId: string;
  stub: StubInfo;
  timeoutMs: number;
  store: FlowStore;
}

export interface SvcScriptRunnerOptions {
  /** Receives the script's `ctx.logger` / `print` lines. */
  log: (level: LogLevel, message: string) => void;
  /** Worker threads (default: min(2, available cores)). */
  workers?: number;
}

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
  private statePort: MessagePort;
  private readonly wake = new Int32Array(new SharedArrayBuffer(4));

  constructor(private readonly spawn: ReturnType<typeof workerSpawner>, private readonly onMessage: (slot: Slot, message: WorkerMessage) => void,
    private readonly onExit: (slot: Slot, reason: string) => void) {
    [this.worker, this.statePort] = this.start();
  }

  private start(): [Worker, MessagePort] {
    const { port1, port2 } = new MessageChannel();
    const worker = this.spawn({ workerData: { signal: this.wake.buffer, statePort: port2 }, transferList: [port2] });
    worker.on('message', (message: WorkerMessage) => this.onMessage(this, message));
    worker.on('error', (err) => this.exited(worker, err.message));
    worker.on('exit', (code) => this.exited(worker, `exited with code ${code}`));
    worker.unref();
    return [worker, port1];
  }

  private exited(worker: Worker, reason: string): void {
    if (worker !== this.worker) return;
    this.onExit(this, reason);
    this.statePort.close();
    [this.worker, this.statePort] = this.start();
  }

  post(message: RunMessage): void {
    this.worker.postMessage(message);
    this.worker.ref();
  }

  answer(seq: number, ok: boolean, valueOrMessage: unknown): void {
    this.statePort.postMessage(ok ? { seq, ok, value: valueOrMessage } : { seq, ok, message: String(valueOrMessage) });
    Atomics.store(this.wake, 0, 1);
    Atomics.notify(this.wake, 0);
  }

  settled(): void {
    if (this.pending.size === 0) this.worker.unref();
  }

  /** Replaces a worker stuck past a deadline. */
  restart(): void {
    const worker = this.worker;
    this.statePort.close();
    [this.worker, this.statePort] = this.start();
    void worker.terminate();
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.statePort.close();
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}

export class SvcScriptRunner {
  private readonly slots: Slot[];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: SvcScriptRunnerOptions) {
    const spawn = workerSpawner(import.meta.url, 'worker');
    const count = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
    this.slots = Array.from({ length: count }, () => new Slot(spawn, (slot, m) => this.received(slot, m), (slot, reason) => this.lost(slot, reason)));
  }

  /** Runs a script; resolves with its outcome (never rejects): a timeout at the deadline at the latest. */
  run(run: ScriptRun): Promise<RunOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, errorType: 'host', message: 'script runner closed' });
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
    if (!pending || pending.released) {
      slot.answer(message.seq, false, 'script already released');
      return;
    }
    callStore(pending.run.store, message.op, message.flowId, message.args).then(
      (value) => slot.answer(message.seq, true, value),
      (err: unknown) => slot.answer(message.seq, false, (err as Error)?.message ?? String(err)),
    );
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

function callStore(store: FlowStore, op: StateOp, flowId: string, args: unknown[]): Promise<unknown> {
  try {
    switch (op) {
      case 'get': return store.get(flowId, String(args[0]));
      case 'set': return store.set(flowId, String(args[0]), args[1]);
      case 'exists': return store.exists(flowId, String(args[0]));
      case 'delete': return store.delete(flowId, String(args[0]));
      case 'incrBy': return store.incrBy(flowId, String(args[0]), Number(args[1]));
      case 'cas': return store.cas(flowId, String(args[0]), args[1], args[2]);
      case 'expireFlow': return store.expireFlow(flowId, Number(args[0]));
      case 'expireKey': return store.expireKey(flowId, String(args[0]), Number(args[1]));
      case 'clear': return store.clear(flowId);
    }
  } catch (err) {
    return Promise.reject(err);
  }
}

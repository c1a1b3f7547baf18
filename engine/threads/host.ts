/**
 * One worker thread as its owner sees it (an engine thread of the per-core runtime, a JavaScript
 * sandbox worker, a `_svc.script` worker): spawned with the owner's workerData, ready when the
 * thread says so, messages batched per task or turn, and kept alive: a thread that dies, or stops
 * answering, is restarted with backoff.
 *
 * - Exit or uncaught error: logged at error level, the owner hears `onLost` (its calls to the dead
 *   thread fail there), and a new thread starts. Deaths soon after a start back off (0, 100, 200 ms)
 *   and the third in a row gives up (`onGiveUp`): a thread that cannot even start is not restarted
 *   forever.
 * - Heartbeat: the thread's own event loop counts up a shared word (hosted.ts). A thread that is
 *   ready and has not counted for `timeoutMs` is hung (a loop no deadline reaches): it is terminated,
 *   logged at error level, and handled as a death. An owner whose thread may legitimately be silent
 *   (a script running up to its deadline) says until when with `quietUntil`.
 * - Generations: every death starts a new one; messages batched for the dead thread are dropped, and
 *   an owner tags what it sends with `generation` so late answers meant for the dead one are too.
 */
import { MessageChannel, type MessagePort, type TransferListItem, type Worker, type WorkerOptions } from 'node:worker_threads';
import { ArrayOutbox, PerTurn, type BatchTiming, type Outbox } from './per-turn.js';
import { WIRING_KEY, type ThreadWiring } from './wiring.js';

/** A death before ready or this soon after it counts towards giving up. */
const QUICK_DEATH_MS = 2000;
/** Quick deaths in a row after which the thread is not restarted. */
const MAX_QUICK_DEATHS = 3;
/** The delay before the restart after the first quick death; doubled after each further one. */
const BACKOFF_MS = 100;
const HEARTBEAT_INTERVAL_MS = 500;
const HEARTBEAT_TIMEOUT_MS = 5000;

export interface ThreadHostOptions<In> {
  /** Names the thread in logs ("engine thread 1", "script worker"). */
  name: string;
  /** What kind of thread it is ('engine', 'script', 'sandbox'): test hooks select threads by it. */
  kind: string;
  /** Starts a worker (a workerSpawner's function). */
  spawn: (options: WorkerOptions) => Worker;
  /** Called at every spawn: the owner's workerData for this generation (fresh ports, say) and what to transfer. */
  starting?: (generation: number) => { workerData?: Record<string, unknown>; transferList?: TransferListItem[]; stdout?: boolean };
  /** Error-level log lines. */
  log: (message: string) => void;
  /** Every message the thread posts, as posted (the owner's protocol). */
  receive: (message: unknown) => void;
  /** A thread was spawned (after `starting`); `generation` > 1 for restarts. */
  onStart?: (generation: number, worker: Worker) => void;
  /** The thread said it is ready. */
  onReady?: () => void;
  /** The thread is gone (exit, error, restart, hung); runs before a restart is scheduled. */
  onLost?: (reason: string) => void;
  /** The thread died too often right after starting: it stays down. */
  onGiveUp?: () => void;
  /** How messages to the thread are gathered (default: an array per batch). */
  outbox?: () => Outbox<In>;
  /** When a batch goes (default 'microtask'). */
  batch?: BatchTiming;
  heartbeat?: { intervalMs?: number; timeoutMs?: number };
  /** The time (epoch ms) until which silence is expected (a script running to its deadline); 0 when none. */
  quietUntil?: () => number;
  /** Start on the first post rather than now, and after a death on the next post. */
  lazy?: boolean;
}

export class ThreadHost<In = unknown> {
  private worker_: Worker | undefined;
  private control: MessagePort | undefined;
  private beat = new Int32Array(new SharedArrayBuffer(4));
  private outbox: Outbox<In>;
  private readonly batching: PerTurn;
  private generation_ = 1;
  private spawns = 0;
  /** When the current thread said it is ready (0: not yet). */
  private readyAt = 0;
  private quickDeaths = 0;
  private ready_ = false;
  private lastBeat = 0;
  private lastBeatAt = 0;
  private lastCheckAt = 0;
  private watch: NodeJS.Timeout | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Inside onLost: the restart follows it. */
  private restarting = false;
  private down_ = false;
  private referenced = false;
  /** Asked to run while a loss was being handled: start again right after it. */
  private wakeAfterLoss = false;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: ThreadHostOptions<In>) {
    this.outbox = this.newOutbox();
    this.batching = new PerTurn(options.batch ?? 'microtask', this.flush);
    this.intervalMs = options.heartbeat?.intervalMs ?? HEARTBEAT_INTERVAL_MS;
    this.timeoutMs = options.heartbeat?.timeoutMs ?? HEARTBEAT_TIMEOUT_MS;
    if (!options.lazy) this.start();
  }

  /** The current worker (undefined between a death and its restart, before a lazy start, or once down). */
  get worker(): Worker | undefined {
    return this.worker_;
  }

  /** Bumped at every death: what was sent to an older generation is void. */
  get generation(): number {
    return this.generation_;
  }

  /** The current thread said it is ready. */
  get ready(): boolean {
    return this.ready_;
  }

  /** Gave up after repeated quick deaths. */
  get down(): boolean {
    return this.down_;
  }

  /** Queues a message for the next batch (and starts a lazy thread). */
  post(message: In): void {
    if (this.stopped || this.down_) return;
    if (!this.worker_ && !this.restartTimer && !this.restarting) this.start();
    this.outbox.add(message);
    this.batching.schedule();
  }

  /** Starts the thread now if it is not running: a lazy thread that other threads reach directly, not through `post`. */
  wake(): void {
    if (this.stopped || this.down_ || this.worker_ || this.restartTimer) return;
    if (this.restarting) this.wakeAfterLoss = true;
    else this.start();
  }

  /** The thread keeps the process alive (while it owes an answer, say); unref'd otherwise. */
  ref(): void {
    this.referenced = true;
    this.worker_?.ref();
  }

  unref(): void {
    this.referenced = false;
    this.worker_?.unref();
  }

  /** Terminates the thread and starts a new one (a thread stuck past a deadline); logged at error level unless `logged` is false (routine recycling). */
  restart(reason: string, logged = true): void {
    const worker = this.worker_;
    if (!worker) return;
    this.died(worker, reason, false, logged);
    void worker.terminate();
  }

  /** Stops the thread for good. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const worker = this.detach();
    if (worker) await worker.terminate();
  }

  private newOutbox(): Outbox<In> {
    return this.options.outbox?.() ?? new ArrayOutbox<In>();
  }

  private readonly flush = (): void => {
    if (!this.worker_ || this.outbox.empty) return;
    this.worker_.postMessage(this.outbox.take());
  };

  private start(): void {
    this.restartTimer = undefined;
    this.wakeAfterLoss = false;
    if (this.stopped) return;
    this.readyAt = 0;
    this.spawns += 1;
    this.ready_ = false;
    this.beat = new Int32Array(new SharedArrayBuffer(4));
    const { port1, port2 } = new MessageChannel();
    const wiring: ThreadWiring = { beat: this.beat.buffer, intervalMs: this.intervalMs, control: port2 };
    // Test hook, read only by tests: the first thread of this kind hangs once ready.
    if (process.env.SVC_TEST_THREAD_SPIN === this.options.kind && this.spawns === 1) wiring.spin = true;
    const [slowKind, slowMs] = (process.env.SVC_TEST_THREAD_SLOW_START ?? '').split(':');
    if (slowKind === this.options.kind && this.spawns === 1) wiring.readyDelayMs = Number(slowMs);
    const own = this.options.starting?.(this.generation_) ?? {};
    let worker: Worker;
    try {
      worker = this.options.spawn({
        stdout: own.stdout,
        workerData: { ...own.workerData, [WIRING_KEY]: wiring },
        transferList: [...(own.transferList ?? []), port2],
      });
    } catch (err) {
      // node throws when it cannot make the thread (ERR_WORKER_INIT_FAILED: no memory or threads left). A
      // restart runs from a timer or an 'exit' listener, where nobody would hear that: it is a death at
      // start instead (backoff, then give up). Handled on the next turn, never inside the owner's call.
      port1.close();
      port2.close();
      const reason = `could not start (${(err as Error)?.message ?? String(err)})`;
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (!this.stopped) this.lost(reason);
      }, 0).unref();
      return;
    }
    this.worker_ = worker;
    this.control = port1;
    if (this.referenced) worker.ref();
    else worker.unref();
    port1.on('message', () => this.readied(worker));
    port1.unref();
    worker.on('message', (message: unknown) => {
      if (worker === this.worker_) this.options.receive(message);
    });
    worker.on('error', (err) => {
      if (worker === this.worker_) this.options.log(`${this.options.name} failed: ${err.stack ?? err.message}`);
    });
    worker.on('exit', (code) => {
      if (worker === this.worker_) this.died(worker, `exited (code ${code})`);
    });
    this.options.onStart?.(this.generation_, worker);
    // Messages posted while it was down go now.
    if (!this.outbox.empty) this.batching.schedule();
  }

  private readied(worker: Worker): void {
    if (worker !== this.worker_ || this.ready_) return;
    this.ready_ = true;
    this.readyAt = Date.now();
    this.lastBeat = Atomics.load(this.beat, 0);
    this.lastBeatAt = Date.now();
    this.lastCheckAt = this.lastBeatAt;
    this.watch = setInterval(() => this.check(worker), this.intervalMs).unref();
    this.options.onReady?.();
  }

  /** Heartbeat watch: hung when no beat for timeoutMs past any silence the owner expects. */
  private check(worker: Worker): void {
    if (worker !== this.worker_) return;
    const beat = Atomics.load(this.beat, 0);
    const now = Date.now();
    const sinceCheck = now - this.lastCheckAt;
    this.lastCheckAt = now;
    // This side did not run for a while (the process was stopped, or this loop blocked): the thread had no
    // chance to be seen beating, so its silence counts from now.
    if (sinceCheck > 2 * this.intervalMs) this.lastBeatAt = now;
    if (beat !== this.lastBeat) {
      this.lastBeat = beat;
      this.lastBeatAt = now;
      return;
    }
    const since = Math.max(this.lastBeatAt, this.options.quietUntil?.() ?? 0);
    if (now - since < this.timeoutMs) return;
    this.died(worker, `stopped answering (no heartbeat for ${now - this.lastBeatAt} ms); terminated`);
    void worker.terminate();
  }

  /** Forgets the current worker and everything batched for it. */
  private detach(): Worker | undefined {
    const worker = this.worker_;
    this.worker_ = undefined;
    this.ready_ = false;
    clearInterval(this.watch);
    this.watch = undefined;
    this.control?.close();
    this.control = undefined;
    return worker;
  }

  /** `failedStart`: false for a restart the owner asked for (that thread did start; it is not counted towards giving up). */
  private died(worker: Worker, reason: string, failedStart = true, logged = true): void {
    if (worker !== this.worker_ || this.stopped) return;
    this.detach();
    this.lost(reason, failedStart, logged);
  }

  /** The thread is gone (or never started): a new generation, the owner told, a restart or giving up. */
  private lost(reason: string, failedStart = true, logged = true): void {
    this.generation_ += 1;
    this.outbox = this.newOutbox();
    // Before ready, or soon after: a start that failed (a start may take seconds on a loaded machine).
    const quick = failedStart && (this.readyAt === 0 || Date.now() - this.readyAt < QUICK_DEATH_MS);
    this.quickDeaths = quick ? this.quickDeaths + 1 : 0;
    const name = this.options.name;
    if (this.quickDeaths >= MAX_QUICK_DEATHS) {
      this.down_ = true;
      this.options.log(`${name} ${reason}; it keeps dying at start: not restarted`);
      this.options.onLost?.(reason);
      this.options.onGiveUp?.();
      return;
    }
    const delay = this.quickDeaths === 0 ? 0 : BACKOFF_MS * 2 ** (this.quickDeaths - 1);
    if (logged) this.options.log(`${name} ${reason}; restarting it${delay > 0 ? ` in ${delay} ms` : ''}`);
    // What the owner posts while it hears of the loss waits in the new outbox for the new thread.
    this.restarting = true;
    try {
      this.options.onLost?.(reason);
    } finally {
      this.restarting = false;
    }
    if (this.stopped) return;
    if (delay > 0) this.restartTimer = setTimeout(() => this.start(), delay).unref();
    // A lazy thread starts again when it is next needed (a start costs seconds of CPU on a loaded machine).
    else if (!this.options.lazy || !this.outbox.empty || this.wakeAfterLoss) this.start();
  }
}

import { MessageChannel, receiveMessageOnPort, SHARE_ENV, type MessagePort, type TransferListItem, type Worker } from 'node:worker_threads';
import type { Logger } from '../log/index.js';
import {
  asBuffer,
  type ObserverEvent,
  type FromThread,
  type ImposterPlan,
  type PlanMessage,
  type PortableListenerOptions,
  type ProxyRecording,
  type ScriptLinkMessage,
  type ThreadReport,
  type ToThread,
} from './protocol.js';
import type { RecordedRequest } from '../serve/index.js';
import { CountReader } from './counts.js';
import { EventReader } from './event-ring.js';
import { connectionFilterSpec, createListener, defaultKeyPair, type Listener, type ListenerOptions, type RequestHandler } from '../transport/index.js';
import { LinkBoard, ThreadHost, workerSpawner } from '../threads/index.js';
import { dupFd, loadDup } from './fd-dup.js';
import { RemoteSink, type Interners } from './remote-sink.js';
import { Interner } from './intern.js';
import { errorText } from '../model/index.js';

/**
 * What serves a listener's requests (an imposter), for engine threads to answer them themselves
 * when it can: its plan, a way to hear when the plan changes, and where what they did goes.
 */
export interface PlanSource {
  /** Undefined: engine threads forward every request to the main thread. */
  plan(): ImposterPlan | undefined;
  /** Called by the source synchronously whenever its plan may have changed (stubs, enabled). */
  onPlanChange(changed: () => void): void;
  /** `drain` brings in every engine thread's pending records: the source calls it before reading its journal. */
  onRecordsPending(drain: () => void): void;
  /** Requests engine threads answered with `status` (observers.onRequest, `times` over). */
  answered(method: string, status: number, times: number): void;
  /** A record an engine thread finished (posted before its response was written), in the order main receives them. */
  recorded(record: RecordedRequest, notify: boolean): void;
  /** A fault metric an engine thread reported. */
  observed(event: ObserverEvent): void;
  /** A proxyAlways recording an engine thread posted (before its response was written), in the order main receives them. */
  proxyRecorded(recording: ProxyRecording): void;
  /** A `--debug` match an engine thread posted (before its response was written) for the stub with `key`. */
  threadMatched(key: number, entry: Record<string, unknown>): void;
  /** A flow store operation an engine thread asks of the imposter's store (its one owner). */
  flowCall(op: string, args: unknown[]): Promise<unknown>;
  /** What engine threads did in the plan's shared memory that observers count (scenario cells' ops and flows). */
  collectShared(): void;
  /** A proxy recording step engine thread `slot` asks of the stubs' owner (ProxyOwner). */
  proxyCall(op: string, args: unknown[], slot: number): Promise<unknown>;
  /** Engine thread `slot` died or hung: what it was doing for others (a proxyOnce recording) is given up. */
  threadLost(slot: number): void;
}

/** A listener every engine thread accepts on; `handler` runs on the main thread. */
interface Shared {
  id: number;
  fd: number;
  options: PortableListenerOptions;
  handler: RequestHandler;
  events: ListenerOptions['events'];
  http2Allowed: ListenerOptions['http2Allowed'];
  /** 1 while new connections may speak HTTP/2 (read by engine threads per connection). */
  flag: Int32Array;
  source?: PlanSource;
  /** The newest plan posted; its version is stored in `version` once every thread has it queued. */
  published: PlanMessage;
  version: Int32Array;
}

interface Ack {
  resolve(): void;
  reject(error: Error): void;
}

/** How often engine threads' own answers reach observers when nobody scrapes. */
const COLLECT_MS = 1000;

/** How long engine threads outlive the last listener. */
const IDLE_STOP_MS = 5000;

// One environment with main: a shellTransform's command sees process.env as it is now, as on one loop.
const spawn = workerSpawner(import.meta.url, 'engine-thread', { env: SHARE_ENV });

/**
 * One engine thread (slot 1..N-1). Its lifecycle is a ThreadHost's: batched posts, heartbeat, and a
 * restart with backoff when it dies or hangs, after which it listens on every current listener again.
 */
class EngineThread {
  private readonly listening = new Map<number, Ack>();
  private readonly closing = new Map<number, Ack>();
  readonly thread: ThreadHost<ToThread>;

  constructor(
    readonly slot: number,
    private readonly runtime: PerCoreRuntime,
  ) {
    this.thread = new ThreadHost<ToThread>({
      name: `engine thread ${slot}`,
      kind: 'engine',
      spawn,
      starting: (generation) => this.starting(generation),
      onStart: (generation) => {
        // Direct links to every script worker, now and as they start (the thread calls scripts on them, not through main).
        this.unlink();
        this.unlink = runtime.links.consume((offer, port) => {
          const message: ScriptLinkMessage = { t: 'scriptLink', offer, port };
          this.control.postMessage(message, [port]);
        });
        if (generation > 1) this.listenAgain();
      },
      log: (message) => runtime.log.error(`runtime per-core: ${message}`),
      receive: (batch) => {
        for (const message of batch as FromThread[]) this.receive(message);
      },
      onLost: () => this.lostThread(),
      onGiveUp: () => this.gaveUp(),
    });
  }

  /** The current worker (undefined while a restart backs off). */
  get worker(): Worker | undefined {
    return this.thread.worker;
  }

  /** Stops this thread's script links from being made (its thread is gone). */
  private unlink: () => void = () => undefined;

  /** Plans out; count keys, records and event keys in (also drained synchronously: receiveMessageOnPort). */
  private control!: MessagePort;
  private counts = new CountReader();
  /** The thread's metric events, replayed to the imposters' observers when drained. */
  private events = new EventReader();
  /** Answers to requests of this generation of the thread: a restarted thread reuses request ids, so late answers to the dead one are dropped. */
  private answer: (message: ToThread) => void = () => undefined;

  /** Static header lists and bodies sent to this thread (kept there by id). */
  private readonly interners: Interners = { headers: new Interner(), bodies: new Interner() };

  /** Stubs changed: the thread drops the header lists and bodies it keeps, this side forgets them. */
  forgetKept(): void {
    this.interners.headers.forget();
    this.interners.bodies.forget();
    this.post({ t: 'forget' });
  }

  /** A new thread: nothing kept there yet, a control channel of its own. */
  private starting(generation: number): { workerData: Record<string, unknown>; transferList: TransferListItem[]; stdout: boolean } {
    this.interners.headers.forget();
    this.interners.bodies.forget();
    this.answer = (message) => {
      if (generation === this.thread.generation) this.post(message);
    };
    const channel = new MessageChannel();
    this.control = channel.port1;
    this.control.on('message', (report: ThreadReport) => this.report(report));
    this.control.unref();
    this.counts = new CountReader();
    this.events = new EventReader();
    return { workerData: { slot: this.slot, control: channel.port2 }, transferList: [channel.port2], stdout: false };
  }

  /** Batched per task (a batch of forwarded requests is answered with one message). */
  readonly post = (message: ToThread): void => {
    this.thread.post(message);
  };

  /** Posted at once (not batched): the caller bumps the listener's version right after. */
  postPlan(message: PlanMessage): void {
    this.control.postMessage(message);
  }

  /** Takes every report and metric event the thread made so far, synchronously (records reach the journal now). */
  drain(): void {
    this.takeReports();
    this.drainEvents();
  }

  private readonly drainEvents = (): void => {
    this.events.drain(this.replay, this.takeReports);
  };

  private readonly takeReports = (): void => {
    for (let received = receiveMessageOnPort(this.control); received; received = receiveMessageOnPort(this.control)) {
      this.report(received.message as ThreadReport);
    }
  };

  private readonly replay = (id: number, event: ObserverEvent): void => {
    this.runtime.source(id)?.observed(event);
  };

  private report(report: ThreadReport): void {
    if (report.t === 'key') this.counts.learn(report.key);
    else if (report.t === 'recs') for (const { id, record, notify } of report.records) this.runtime.source(id)?.recorded(record, notify);
    else if (report.t === 'recording') this.runtime.source(report.id)?.proxyRecorded(report.recording);
    else if (report.t === 'match') this.runtime.source(report.id)?.threadMatched(report.stub, report.entry);
    else if (report.t === 'eventKey') this.events.learn(report.key);
    else if (report.t === 'eventsWaiting') this.drainEvents();
    else this.runtime.source(report.id)?.observed(report.event);
  }

  /** Reports what this thread answered itself since the last collection. */
  collect(report: (id: number, method: string, status: number, times: number) => void): void {
    this.drain();
    this.counts.collect(report);
  }

  /** The thread died or hung (ThreadHost logged it): what it counted is in shared memory still, and its descriptors died with it. */
  private lostThread(): void {
    this.unlink();
    this.runtime.links.threadLost(this.slot);
    this.runtime.collect();
    for (const shared of this.runtime.current()) shared.source?.threadLost(this.slot);
    for (const ack of this.closing.values()) ack.resolve();
    this.closing.clear();
  }

  private gaveUp(): void {
    for (const ack of this.listening.values()) ack.reject(new Error(`engine thread ${this.slot} cannot start`));
    this.listening.clear();
    this.runtime.lost(this);
  }

  /** A restarted thread accepts on every current listener again. */
  private listenAgain(): void {
    for (const shared of this.runtime.current())
      void this.listen(shared).catch((err: Error) =>
        this.runtime.log.error(`runtime per-core: engine thread ${this.slot} cannot listen on port ${shared.options.port} again: ${err.message}`),
      );
  }

  listen(shared: Shared): Promise<void> {
    return new Promise((resolve, reject) => {
      // A thread restarted before it answered an earlier listen: that caller hears this answer.
      const earlier = this.listening.get(shared.id);
      this.listening.set(shared.id, {
        resolve: () => {
          earlier?.resolve();
          resolve();
        },
        reject: (error) => {
          earlier?.reject(error);
          reject(error);
        },
      });
      this.postPlan(shared.published);
      this.post({ t: 'listen', id: shared.id, fd: dupFd(shared.fd), options: shared.options, http2Allowed: shared.flag, version: shared.version });
    });
  }

  close(id: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.closing.set(id, { resolve, reject });
      this.post({ t: 'close', id });
    });
  }

  private receive(message: FromThread): void {
    switch (message.t) {
      case 'req': {
        const shared = this.runtime.shared(message.id);
        const sink = new RemoteSink(message.protocol, message.r, this.answer, this.interners);
        if (!shared) {
          sink.reset();
          return;
        }
        message.wire.body = asBuffer(message.wire.body);
        try {
          shared.handler(message.wire, sink);
        } catch (err) {
          this.runtime.log.error(`runtime per-core: request failed: ${errorText(err)}`);
          sink.reset();
        }
        return;
      }
      case 'flow':
      case 'proxy': {
        const { c, op, args } = message;
        const source = this.runtime.source(message.id);
        const call = !source
          ? Promise.reject(new Error('listener closed'))
          : message.t === 'flow'
            ? source.flowCall(op, args)
            : source.proxyCall(op, args, this.slot);
        call.then(
          (value) => this.answer({ t: 'done', c, value }),
          (err: unknown) => this.answer({ t: 'done', c, error: errorText(err) }),
        );
        return;
      }
      case 'accepted': {
        const events = this.runtime.shared(message.id)?.events;
        for (let i = 0; i < message.count; i += 1) events?.accepted(this.slot);
        return;
      }
      case 'acceptFailed':
        this.runtime.shared(message.id)?.events?.acceptFailed(Object.assign(new Error(message.message), { code: message.code }));
        return;
      case 'listening':
        this.settle(this.listening, message.id);
        return;
      case 'listenFailed':
        this.settle(this.listening, message.id, Object.assign(new Error(message.message), { code: message.code }));
        return;
      case 'closed':
        // Its events replayed first: the thread has dropped their keys, so none comes after this.
        this.drain();
        this.events.forget(message.id);
        this.settle(this.closing, message.id);
        return;
      case 'log':
        this.runtime.log[message.level](message.message);
        return;
      case 'scriptStuck':
        this.runtime.links.stuck(message.pool, message.worker, message.generation);
        return;
      case 'scriptStall':
        this.runtime.links.stalled(message.pool);
    }
  }

  private settle(acks: Map<number, Ack>, id: number, error?: Error): void {
    const ack = acks.get(id);
    acks.delete(id);
    if (error) ack?.reject(error);
    else ack?.resolve();
  }

  async stop(): Promise<void> {
    this.unlink();
    await this.thread.stop();
  }
}

async function portable(options: ListenerOptions): Promise<PortableListenerOptions | undefined> {
  const filter = options.allowConnection && connectionFilterSpec(options.allowConnection);
  if (options.allowConnection && !filter) return undefined;
  // The default pair is made once per thread: engine threads must serve the main thread's (the one reported).
  const fallback = options.protocol === 'https' && (options.key === undefined || options.cert === undefined) ? await defaultKeyPair() : undefined;
  return {
    protocol: options.protocol,
    port: options.port,
    key: options.key ?? fallback?.key,
    cert: options.cert ?? fallback?.cert,
    mutualAuth: options.mutualAuth,
    rejectUnauthorized: options.rejectUnauthorized,
    ca: options.ca,
    ciphers: options.ciphers,
    http2: options.http2,
    maxBodyBytes: options.maxBodyBytes,
    timeouts: options.timeouts,
    filter,
    bodyBudget: options.bodyBudget && { limitBytes: options.bodyBudget.limitBytes, memory: options.bodyBudget.memory },
  };
}

/**
 * `--runtime per-core` (docs/cli.md): N engine threads accept on every listener the main thread binds (the
 * main thread is slot 0 and serves too). An engine thread answers every request of an imposter with a plan
 * itself (ImposterPlan: counters and cycles in shared memory, what has one owner reached on main by message);
 * a listener without one (a fleet's imposter) has its requests forwarded to the main thread's engine.
 */
export class PerCoreRuntime {
  private threads: EngineThread[] | undefined;
  private readonly listeners = new Map<number, Shared>();
  private nextId = 1;
  private warnedUnportable = false;

  /** Throws, saying how to build it, when the dup(2) addon engine threads need is missing. */
  constructor(
    readonly workers: number,
    readonly log: Logger,
    /** Where engine threads and script workers are introduced to each other (the script pools provide). */
    readonly links: LinkBoard = new LinkBoard(),
  ) {
    if (workers > 1) loadDup();
    log.info(`runtime per-core: ${workers} engine threads`);
  }

  /** The engine threads (slots 1..N-1), started by the first listener: for tests and diagnostics. */
  get engineThreads(): ReadonlyArray<{ readonly slot: number; readonly worker: Worker | undefined }> {
    return this.threads ?? [];
  }

  shared(id: number): Shared | undefined {
    return this.listeners.get(id);
  }

  current(): Shared[] {
    return [...this.listeners.values()];
  }

  lost(thread: EngineThread): void {
    this.threads = this.threads?.filter((t) => t !== thread);
  }

  /** Binds on the main thread as `createListener` does, then every engine thread accepts there too before it resolves. */
  async listen(options: ListenerOptions, handler: RequestHandler, source?: PlanSource): Promise<Listener> {
    const portableOptions = this.workers > 1 ? await portable(options) : undefined;
    const main = await createListener(options, handler);
    if (!portableOptions || main.fd < 0) {
      if (this.workers > 1 && !portableOptions && !this.warnedUnportable) {
        this.warnedUnportable = true;
        this.log.warn('runtime per-core: a custom connection filter cannot run on engine threads; such listeners are served by the main thread only');
      }
      return main;
    }
    clearTimeout(this.idleStop);
    this.threads ??= Array.from({ length: this.workers - 1 }, (_, i) => new EngineThread(i + 1, this));
    this.collecting ??= setInterval(() => this.collect(), COLLECT_MS).unref();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const id = this.nextId++;
    const shared: Shared = {
      id,
      fd: main.fd,
      options: { ...portableOptions, port: main.port },
      handler,
      events: options.events,
      http2Allowed: options.http2Allowed,
      flag,
      source,
      published: { id, version: 1, plan: source?.plan() },
      version: new Int32Array(new SharedArrayBuffer(4)),
    };
    Atomics.store(shared.version, 0, 1);
    this.refreshOne(shared);
    this.listeners.set(shared.id, shared);
    if (source) {
      this.sources.set(id, source);
      source.onPlanChange(() => this.publish(shared));
      source.onRecordsPending(this.drain);
    }
    const close = async (): Promise<void> => {
      this.listeners.delete(shared.id);
      await Promise.all((this.threads ?? []).map((thread) => thread.close(shared.id)));
      // Every thread stopped answering here: what they counted is final.
      this.collect();
      this.sources.delete(id);
      await main.close();
      if (this.listeners.size === 0) this.stopWhenIdle();
    };
    try {
      await Promise.all(this.threads.map((thread) => thread.listen(shared)));
    } catch (err) {
      await close();
      throw err;
    }
    let closing: Promise<void> | undefined;
    return { port: main.port, fd: main.fd, close: () => (closing ??= close()) };
  }

  /**
   * The source's plan changed: every thread gets the new one queued on its control channel, THEN the
   * version moves, so a thread that sees the new version finds the plan by draining that channel.
   */
  private publish(shared: Shared): void {
    if (this.listeners.get(shared.id) !== shared) return;
    const message: PlanMessage = { id: shared.id, version: shared.published.version + 1, plan: shared.source?.plan() };
    shared.published = message;
    for (const thread of this.threads ?? []) thread.postPlan(message);
    Atomics.store(shared.version, 0, message.version);
  }

  private collecting: NodeJS.Timeout | undefined;

  source(id: number): PlanSource | undefined {
    return this.sources.get(id);
  }

  /** Every engine thread's pending records and metrics, taken now (before a journal read). */
  readonly drain = (): void => {
    for (const thread of this.threads ?? []) thread.drain();
  };
  /** Where each listener's locally answered requests are reported (kept until its threads closed it). */
  private readonly sources = new Map<number, PlanSource>();

  /**
   * Brings what engine threads answered themselves to each source (observers.onRequest): run before a
   * metrics scrape, so a request answered before it is counted, and every second for other observers.
   */
  collect(): void {
    const report = (id: number, method: string, status: number, times: number): void => this.sources.get(id)?.answered(method, status, times);
    for (const thread of this.threads ?? []) thread.collect(report);
    for (const source of this.sources.values()) source.collectShared();
  }

  private refreshOne(shared: Shared): void {
    Atomics.store(shared.flag, 0, (shared.http2Allowed?.() ?? true) ? 1 : 0);
  }

  /** Stubs changed somewhere: engine threads re-read whether new connections may use HTTP/2. */
  refresh(): void {
    for (const shared of this.listeners.values()) this.refreshOne(shared);
    for (const thread of this.threads ?? []) thread.forgetKept();
  }

  private idleStop: NodeJS.Timeout | undefined;

  /**
   * No listener left: the engine threads stop after a while (a manager that is dropped without close()
   * must not keep threads), unless a new listener comes first.
   */
  private stopWhenIdle(): void {
    clearTimeout(this.idleStop);
    this.idleStop = setTimeout(() => {
      if (this.listeners.size === 0) void this.close();
    }, IDLE_STOP_MS).unref();
  }

  /** Stops every engine thread (process shutdown; listeners are closed by their owners first). */
  async close(): Promise<void> {
    clearTimeout(this.idleStop);
    this.collect();
    clearInterval(this.collecting);
    this.collecting = undefined;
    const threads = this.threads ?? [];
    this.threads = undefined;
    await Promise.all(threads.map((thread) => thread.stop()));
  }
}

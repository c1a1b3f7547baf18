/**
 * An engine thread's copy of an imposter, compiled from its plan (the validated config), serving
 * through the same RequestPipeline as the main thread. Its ImposterState is a view of the owner's:
 * counters and cycle positions in shared memory, records and fault metrics posted to main (a record
 * before its response is written), request counts in this thread's count table, the in-memory flow
 * store and proxy recordings (the stubs' owner) reached on main by message, but for the store's scenario
 * states, gated and moved in shared memory (ScenarioCellView).
 */
import type { MockRequest, WireRequest } from '../model/index.js';
import { isObject, plainRequest } from '../model/index.js';
import { compileStubSet, type MatchContext, type StubSetMatcher } from '../match/index.js';
import {
  compileDefaultResponse,
  observeScript,
  runOrFail,
  sharedFaultRandom,
  stubPredicateScripts,
  type CompiledScript,
  type FaultObserver,
  type ImposterScope,
  type IsFields,
  type PreparedResponse,
  type ProxyObserver,
  type SvcScripts,
} from '../respond/index.js';
import { scriptTimeoutOf, type LinkedJsHost } from '../script/js/index.js';
import type { LinkedSvcRunner } from '../script/svc/index.js';
import { flowIdSourceFor, requestFlowId, ScenarioCellView, StubGates, type FlowIdSource, type FlowStore } from '../state/index.js';
import type { JournalEntry } from '../journal/index.js';
import type { Logger, LogEntry } from '../log/index.js';
import type { ResponseSink } from '../transport/index.js';
import {
  compileLiveStub,
  RequestPipeline,
  recordOf,
  type ImposterState,
  type LiveStub,
  type RecordedRequest,
  type ServedImposter,
  type ServeOptions,
} from '../serve/index.js';
import type { CountTables } from './counts.js';
import type { ObserverEvent, ImposterPlan, ThreadReport } from './protocol.js';
import { ThreadCounter } from './thread-counter.js';
import { RemoteFlowStore, type FlowCaller, type ThreadRedisStores } from './remote-flow-store.js';
import { HeldSink, type RecordBatch } from './record-batch.js';
import { ThreadProxyRecorder, type ProxyCaller } from './thread-proxy.js';

/** How an engine thread reaches main: reports drained synchronously there, logs batched. */
export interface ThreadLinks {
  slot: number;
  /** The listener this imposter serves (reports name it). */
  id: number;
  report(report: ThreadReport): void;
  /** A metric event of an imposter of this thread, for main to replay to its observers (event-ring.ts). */
  observed(id: number, event: ObserverEvent): void;
  /** Where finished records wait for the turn's message to main. */
  records: RecordBatch;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
  counts: CountTables;
  /** Reaches the imposter's in-memory flow store on main (its owner). */
  flowCall: FlowCaller;
  /** Reaches the imposter's stubs on main (their owner), where proxy recordings go. */
  proxyCall: ProxyCaller;
  /** The thread's own redis stores (an imposter with a redis flow store). */
  redisStores: ThreadRedisStores;
  /** This thread's links to the script workers (started on first use). */
  scripts: () => { js: LinkedJsHost; svc: LinkedSvcRunner };
}

/**
 * Logs go to the main thread's logger, in the order this thread logged them (one channel). Debug and
 * info lines leave the thread only when main logs at debug level (`logRequests`, fixed with the imposter):
 * otherwise main would drop them.
 */
function threadLogger(links: ThreadLinks, debug: boolean): Logger {
  return {
    debug: debug ? (message) => links.log('debug', message) : () => undefined,
    info: debug ? (message) => links.log('info', message) : () => undefined,
    warn: (message) => links.log('warn', message),
    error: (message) => links.log('error', message),
    isEnabled: (level) => debug || level === 'warn' || level === 'error',
    recent: (): LogEntry[] => [],
  };
}

export class ThreadImposter implements ServedImposter, ImposterState {
  readonly port: number;
  readonly protocol: string;
  readonly name: unknown;
  readonly enabled: boolean;
  readonly stubs: readonly LiveStub[];
  readonly matcher: StubSetMatcher;
  readonly gates: StubGates | undefined;
  readonly matchContext: MatchContext;
  readonly scope: ImposterScope;
  readonly defaultPrepared: PreparedResponse;
  readonly options: ServeOptions;
  readonly log: Logger;
  readonly flowStore: FlowStore;
  readonly proxyRecorder: ThreadProxyRecorder;
  readonly proxyObserver: ProxyObserver;
  private readonly flowIdSource: FlowIdSource;
  /** Each stub's key on the owner (plan order), which names it in `--debug` matches. */
  private readonly stubKeys: readonly number[];
  /** [2]: `--debug` matches posted and not received by main yet (ImposterPlan.recordings). */
  private readonly pending: Int32Array;
  private readonly count: ThreadCounter;
  private readonly pipeline: RequestPipeline;
  /** `{"_svc": {"script": S}}` predicates of the stubs, by predicate object (this thread's copy of the config). */
  private readonly predicateScripts = new WeakMap<object, { script: CompiledScript; ruleId: string }>();

  constructor(
    plan: ImposterPlan,
    private readonly links: ThreadLinks,
  ) {
    this.port = plan.port;
    this.protocol = plan.protocol;
    this.name = plan.config.name;
    this.enabled = plan.enabled;
    this.options = plan.options;
    this.log = threadLogger(links, plan.options.logRequests);
    const defaults = isObject(plan.config.defaultResponse) ? (plan.config.defaultResponse as IsFields) : undefined;
    this.defaultPrepared = compileDefaultResponse(defaults);
    const settings = plan.scripts?.settings;
    this.stubs = plan.stubs.map((stub) => compileLiveStub(stub.config, defaults, settings && { settings, stub: stub.config }, stub.cycle));
    const configs = this.stubs.map((stub) => stub.config);
    this.matcher = compileStubSet(configs);
    this.gates = StubGates.compile(configs);
    this.flowStore =
      links.redisStores.storeFor(links.id, plan.config)
      ?? new RemoteFlowStore('inmemory', links.flowCall, undefined, plan.scenarios && new ScenarioCellView(plan.scenarios));
    const observers: FaultObserver = {
      onFault: (...args) => this.observe({ name: 'onFault', args }),
      onLatencyInjected: (...args) => this.observe({ name: 'onLatencyInjected', args }),
      onErrorStatus: (...args) => this.observe({ name: 'onErrorStatus', args }),
    };
    this.proxyObserver = {
      onUpstream: (...args) => this.observe({ name: 'onUpstream', args }),
      onProxy: (...args) => this.observe({ name: 'onProxy', args }),
    };
    const pending = new Int32Array(plan.recordings);
    this.pending = pending;
    this.stubKeys = plan.stubs.map((stub) => stub.key);
    this.proxyRecorder = new ThreadProxyRecorder(this.stubs, this.stubKeys, links.proxyCall, (recording) => {
      Atomics.add(pending, 0, 1);
      links.report({ t: 'recording', id: links.id, recording: { ...recording, seq: Atomics.add(pending, 1, 1) } });
    });
    this.scope = {
      port: plan.port,
      defaults,
      observers,
      random: sharedFaultRandom(plan.faultDraws),
      scripts: { host: () => links.scripts().js, timeoutMs: scriptTimeoutOf(plan.config) },
    };
    this.matchContext = {};
    if (plan.scripts) this.serveScripts(plan.scripts);
    this.flowIdSource = flowIdSourceFor(plan.config);
    this.count = new ThreadCounter(plan.count);
    this.pipeline = new RequestPipeline(this, this);
  }

  /**
   * Scripts go from this thread to the script workers on its own links: JavaScript to the sandbox worker
   * main placed the imposter on (it holds `state`), `_svc.script` Rhai to any script worker.
   */
  private serveScripts({ settings, jsWorker, share }: NonNullable<ImposterPlan['scripts']>): void {
    const { port, scope, links } = this;
    if (jsWorker !== undefined) links.scripts().js.placeAt(port, jsWorker);
    if (share) links.scripts().svc.shareAt(port, share);
    const timeoutMs = scope.scripts.timeoutMs;
    const observer = {
      onScript: (...args: [string, string, number]) => this.observe({ name: 'onScript', args }),
      onScriptError: (...args: [string, string]) => this.observe({ name: 'onScriptError', args }),
    };
    const svc: SvcScripts = {
      settings,
      scope: port,
      runner: () => links.scripts().svc,
      store: () => this.flowStore,
      flowIdOf: (request) => this.flowIdOf(request),
      observe: (ruleId, outcome, ms) => observeScript(observer, ruleId, outcome, ms),
    };
    scope.svc = svc;
    this.stubs.forEach((stub, index) => {
      const ruleId = typeof stub.config.id === 'string' ? stub.config.id : `${port}:${index}`;
      for (const { predicate, script } of stubPredicateScripts(stub.config, settings)) this.predicateScripts.set(predicate, { script, ruleId });
    });
    Object.assign(this.matchContext, {
      injectPredicate: (source: string, request: MockRequest) => links.scripts().js.predicate(port, source, plainRequest(request), { timeoutMs }),
      scriptPredicate: async (predicate: Record<string, unknown>, request: MockRequest) => {
        const found = this.predicateScripts.get(predicate);
        if (!found) throw new Error('_svc.script predicate is not available');
        return (await runOrFail(found.script, svc, { request, ruleId: found.ruleId })).value === true;
      },
    });
  }

  handle(wire: WireRequest, sink: ResponseSink): void {
    this.pipeline.handle(wire, this.options.recordRequests ? new HeldSink(sink, this.links.records) : sink);
  }

  flowIdOf(request: { headers: Record<string, string | string[]> }): string {
    if (this.flowIdSource.kind === 'port') return String(this.port);
    return requestFlowId(this.flowIdSource, this.port, request.headers);
  }

  private observe(event: ObserverEvent): void {
    this.links.observed(this.links.id, event);
  }

  countRequest(): void {
    this.count.add(this.links.slot);
  }

  /** The index is main's to give: it is 0 until main appends the record. */
  openRecord(request: MockRequest): JournalEntry<RecordedRequest> {
    return { index: 0, value: recordOf(request) };
  }

  closeRecord(record: JournalEntry<RecordedRequest>, notify: boolean): void {
    this.links.records.add(this.links.id, record.value, notify);
  }

  answered(method: string, status: number): void {
    this.links.counts.add(this.links.id, method, status);
  }

  /** Counted as pending first: main drains this thread before reading stubs while any is on its way. */
  matched(_stub: LiveStub, index: number, entry: Record<string, unknown>): void {
    Atomics.add(this.pending, 2, 1);
    this.links.report({ t: 'match', id: this.links.id, stub: this.stubKeys[index]!, entry });
  }
}

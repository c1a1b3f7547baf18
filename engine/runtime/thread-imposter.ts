/**
 * An engine thread's copy of an imposter, compiled from its plan (the validated config), serving
 * through the same RequestPipeline as the main thread. Its ImposterState is a view of the owner's:
 * counters and cycle positions in shared memory, records and fault metrics posted to main (a record
 * before its response is written), request counts in this thread's count table, the in-memory flow
 * store and proxy recordings (the stubs' owner) reached on main by message.
 */
import type { MockRequest, WireRequest } from '../model/index.js';
import { isObject } from '../model/index.js';
import { compileStubSet, type MatchContext, type StubSetMatcher } from '../match/index.js';
import {
  compileDefaultResponse,
  sharedFaultRandom,
  type FaultObserver,
  type ImposterScope,
  type IsFields,
  type PreparedResponse,
  type ProxyObserver,
} from '../respond/index.js';
import { scriptTimeoutOf } from '../script/js/index.js';
import { flowIdSourceFor, requestFlowId, StubGates, type FlowIdSource, type FlowStore } from '../state/index.js';
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
  /** Where finished records wait for the turn's message to main. */
  records: RecordBatch;
  log(level: 'warn' | 'error', message: string): void;
  counts: CountTables;
  /** Reaches the imposter's in-memory flow store on main (its owner). */
  flowCall: FlowCaller;
  /** Reaches the imposter's stubs on main (their owner), where proxy recordings go. */
  proxyCall: ProxyCaller;
  /** The thread's own redis stores (an imposter with a redis flow store). */
  redisStores: ThreadRedisStores;
}

/** No script is reached here: a plan is only sent when none is needed (servesAnywhere). */
const NO_SCRIPTS: MatchContext = {};

function unavailable(): never {
  throw new Error('scripts are served by the main thread');
}

/** Logs go to the main thread's logger; only warnings and errors leave an engine thread (debug logging forwards the imposter). */
function threadLogger(links: ThreadLinks): Logger {
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => links.log('warn', message),
    error: (message) => links.log('error', message),
    isEnabled: (level) => level === 'warn' || level === 'error',
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
  readonly matchContext = NO_SCRIPTS;
  readonly scope: ImposterScope;
  readonly defaultPrepared: PreparedResponse;
  readonly options: ServeOptions;
  readonly log: Logger;
  readonly flowStore: FlowStore;
  readonly proxyRecorder: ThreadProxyRecorder;
  readonly proxyObserver: ProxyObserver;
  private readonly flowIdSource: FlowIdSource;
  /** Upstream calls reported since the last proxied request's own event. */
  private upstreamEvents: ObserverEvent[] = [];
  private readonly count: ThreadCounter;
  private readonly pipeline: RequestPipeline;

  constructor(
    plan: ImposterPlan,
    private readonly links: ThreadLinks,
  ) {
    this.port = plan.port;
    this.protocol = plan.protocol;
    this.name = plan.config.name;
    this.enabled = plan.enabled;
    this.options = plan.options;
    this.log = threadLogger(links);
    const defaults = isObject(plan.config.defaultResponse) ? (plan.config.defaultResponse as IsFields) : undefined;
    this.defaultPrepared = compileDefaultResponse(defaults);
    this.stubs = plan.stubs.map((stub) => compileLiveStub(stub.config, defaults, undefined, stub.cycle));
    const configs = this.stubs.map((stub) => stub.config);
    this.matcher = compileStubSet(configs);
    this.gates = StubGates.compile(configs);
    this.flowStore = links.redisStores.storeFor(links.id, plan.config) ?? new RemoteFlowStore('inmemory', links.flowCall);
    const observers: FaultObserver = {
      onFault: (...args) => this.observe({ name: 'onFault', args }),
      onLatencyInjected: (...args) => this.observe({ name: 'onLatencyInjected', args }),
      onErrorStatus: (...args) => this.observe({ name: 'onErrorStatus', args }),
    };
    this.proxyObserver = {
      // Held for the proxied request's own event, which follows it before the response is written: one message for both.
      onUpstream: (...args) => this.upstreamEvents.push({ name: 'onUpstream', args }),
      onProxy: (...args) => {
        const events = this.upstreamEvents;
        this.upstreamEvents = [];
        events.push({ name: 'onProxy', args });
        links.report({ t: 'events', id: links.id, events });
      },
    };
    const pending = new Int32Array(plan.recordings);
    this.proxyRecorder = new ThreadProxyRecorder(
      this.stubs,
      plan.stubs.map((stub) => stub.key),
      links.proxyCall,
      (recording) => {
        Atomics.add(pending, 0, 1);
        links.report({ t: 'recording', id: links.id, recording: { ...recording, seq: Atomics.add(pending, 1, 1) } });
      },
    );
    this.scope = {
      port: plan.port,
      defaults,
      observers,
      random: sharedFaultRandom(plan.faultDraws),
      scripts: { host: unavailable, timeoutMs: scriptTimeoutOf(plan.config) },
    };
    this.flowIdSource = flowIdSourceFor(plan.config);
    this.count = new ThreadCounter(plan.count);
    this.pipeline = new RequestPipeline(this, this);
  }

  handle(wire: WireRequest, sink: ResponseSink): void {
    this.pipeline.handle(wire, this.options.recordRequests ? new HeldSink(sink, this.links.records) : sink);
  }

  flowIdOf(request: { headers: Record<string, string | string[]> }): string {
    if (this.flowIdSource.kind === 'port') return String(this.port);
    return requestFlowId(this.flowIdSource, this.port, request.headers);
  }

  private observe(event: ObserverEvent): void {
    this.links.report({ t: 'event', id: this.links.id, event });
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
}

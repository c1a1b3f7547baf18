import { performance } from 'node:perf_hooks';
import type { MockRequest, WireRequest } from '../model/index.js';
import type { ImposterDefinition, StubDefinition } from '../validate/index.js';
import { cloneJson, isObject, plainRequest, toMockRequest } from '../model/index.js';
import { compileStubSet, PredicateError, type MatchContext, type StubSetMatcher, type TriedEntry as MatchTried } from '../match/index.js';
import {
  applyTransportFault, compileDefaultResponse, compileResponse, faultRandom, resolveResponse, ResponseCycle, scriptFailure, stubsUseTcpFault, unknownFault,
  predicateScriptsOf, runOrFail, ScriptFailure, errorResponse, type CompiledScript,
  withCorsPreflight, type CompiledResponse, type ImposterScope, type IsFields, type PreparedResponse, type ResponseOutcome,
} from '../respond/index.js';
import type { Listener, ResponseSink } from '../transport/index.js';
import { JournalRing, type JournalEntry } from '../journal/index.js';
import { outcomeOf, recordOf, type RecordedRequest, type TriedEntry } from './recorded-request.js';
import type { Logger } from '../log/index.js';
import type { ObserverSet } from './observer.js';
import { LoggedSink } from './request-log.js';
import { analyzeStubs, debugReport, ignoredConfigKeys, wantsDebug, type DebugOutcome, type StubWarning } from '../analysis/index.js';
import { scriptTimeoutOf, ScriptTimeoutError, type JsScriptHost } from '../script/js/index.js';
import {
  flowIdSourceFor, flowStateOf, headerFlowId, implicitFlowStore, localFlowStore, requestFlowId, stubsNeedFlowStore,
  applyStateOps, compileStateOps, FlowStoreUnavailable, StubGates, type FlowIdSource, type FlowStore, type GatedRequest, type StateOp,
} from '../state/index.js';
import { scriptSettingsOf, type ScriptSettings, type SvcScriptRunner } from '../script/svc/index.js';

/** A stub as served: its read-back config plus the response cycle (cycling state survives unrelated edits). */
export interface LiveStub {
  config: Record<string, unknown>;
  cycle: ResponseCycle<CompiledResponse>;
  /** mountebank's `--debug`: what this stub matched and answered, oldest first (read back as `matches`). */
  matches?: Array<Record<string, unknown>>;
  /** `_svc.stateOps` by response index (SPEC §2.3); absent when no response has any. */
  stateOps?: Array<StateOp[] | undefined>;
}

const DEBUG_HEADERS: Array<[string, string]> = [['Content-Type', 'application/json'], ['X-Svc-Debug-Response', 'true']];
const TIMEOUT_HEADERS: Array<[string, string]> = [['Content-Type', 'application/json'], ['x-svc-script-timeout', 'true']];

/** One running imposter: its stubs, compiled matcher, journal and listener. */
export class Imposter {
  readonly port: number;
  readonly protocol: string;
  /** Everything given at creation except stubs (read-back and replayable output). */
  readonly config: Record<string, unknown>;
  enabled = true;
  numberOfRequests = 0;
  readonly journal = new JournalRing<RecordedRequest>();
  listener: Listener | undefined;
  /** https only: the server's TLS settings as mountebank reports them (imposter-json.ts tlsMetadata). */
  tls: Record<string, unknown> | undefined;
  /** Some stub answers with a TCP fault: new connections get HTTP/1 only (SPEC §1 rule 3). */
  usesTcpFault = false;
  /** Stub analysis (SPEC §2.10), recomputed whenever the stub list changes. */
  warnings: readonly StubWarning[] = [];
  private stubList: LiveStub[] = [];
  /** Set by `adopt`, from the constructor on. */
  private matcher!: StubSetMatcher;
  /** Matching rule 5 (spaces, scenario states); undefined when no stub has those fields. */
  private gates: StubGates | undefined;
  private readonly defaults: IsFields | undefined;
  private readonly defaultPrepared: PreparedResponse;
  private readonly recordRequests: boolean;
  private readonly allowCORS: boolean;
  /** `--loglevel debug`: each answered request is logged (LoggedSink). */
  private readonly logRequests: boolean;
  /** What predicates may call while matching (inject); verify evaluates with the same context. */
  readonly matchContext: MatchContext;
  private readonly scope: ImposterScope;
  /** SPEC §2.8: where request flow ids come from, and the per-flow store scripts, scenarios and admin use. */
  private readonly flowIdSource: FlowIdSource;
  private store: FlowStore;
  /** `_svc.scriptEngine`, `_svc.scripts` and the `file:` base: what stub edits validate and compile scripts against. */
  readonly scriptSettings: ScriptSettings;
  /** `{"_svc": {"script": S}}` predicates of the current stubs, by predicate object (compiled when stubs change). */
  private predicateScripts!: WeakMap<object, { script: CompiledScript; ruleId: string }>;

  constructor(
    definition: ImposterDefinition, port: number,
    private readonly log: Logger, private readonly observers: ObserverSet,
    /** The manager's JavaScript sandbox, started on first use. */
    scriptHost: () => JsScriptHost,
    /** mountebank's `--mock`: record even when the config's recordRequests is false (read back as written). */
    recordAll = false,
    /** mountebank's `--debug`: stubs keep their matches. */
    private readonly debugMatches = false,
    /** An opened store (redis, or the one a replaced imposter hands over); else built from the config. */
    flowStore?: FlowStore,
    /** The manager's `_svc.script` workers, started on first use. */
    svcRunner?: () => SvcScriptRunner,
    /** mountebank 2.9.1 answers an unknown fault name with the default response (SPEC §2.6: 500 `Unknown fault`). */
    private readonly unknownFaultServesDefault = false,
  ) {
    this.port = port;
    this.protocol = definition.protocol;
    this.config = { ...definition.config, port };
    this.recordRequests = recordAll || definition.config.recordRequests === true;
    this.allowCORS = definition.config.allowCORS === true;
    this.logRequests = log.isEnabled('debug');
    this.defaults = isObject(definition.config.defaultResponse) ? (definition.config.defaultResponse as IsFields) : undefined;
    this.defaultPrepared = compileDefaultResponse(this.defaults);
    const scripts = { host: scriptHost, timeoutMs: scriptTimeoutOf(definition.config) };
    this.scope = { port, defaults: this.defaults, observers, random: faultRandom(), scripts };
    this.scriptSettings = definition.scripts ?? scriptSettingsOf(definition.config, { dir: process.cwd(), confined: true }).settings;
    if (svcRunner) {
      this.scope.svc = {
        settings: this.scriptSettings,
        scope: port,
        runner: svcRunner,
        store: () => this.store,
        flowIdOf: (request) => this.flowIdOf(request),
        observe: (ruleId, outcome, ms) => {
          observers.onScript(ruleId, outcome.ok ? 'ok' : outcome.errorType === 'timeout' ? 'timeout' : 'error', ms);
          if (!outcome.ok) observers.onScriptError(ruleId, outcome.errorType);
        },
      };
    }
    this.matchContext = {
      injectPredicate: (source, request) => scripts.host().predicate(port, source, plainRequest(request), { timeoutMs: scripts.timeoutMs }),
      scriptPredicate: (predicate, request) => this.runPredicateScript(predicate, request),
    };
    this.flowIdSource = flowIdSourceFor(definition.config);
    this.store = flowStore ?? localFlowStore(definition.config, definition.stubs.map((s) => s.config), port, log, observers);
    this.adopt(definition.stubs.map((stub) => this.liveStub(stub)));
  }

  get stubs(): readonly LiveStub[] {
    return this.stubList;
  }

  /** The imposter's flow store (SPEC §2.8); read-only from outside, it may turn in-memory when stubs change. */
  get flowStore(): FlowStore {
    return this.store;
  }

  /** The flow id of a request (SPEC §2.8 `flowIdSource`): the configured header, falling back to the port. */
  flowIdOf(request: { headers: Record<string, string | string[]> }): string {
    // A port-sourced id never reads `headers` (a lazy request builds its header map on first read).
    if (this.flowIdSource.kind === 'port') return String(this.port);
    return requestFlowId(this.flowIdSource, this.port, request.headers);
  }

  /**
   * The flow id the polling filters (savedRequests `match=flow_id=`, verify `flowId`) give a recorded
   * request: as `flowIdOf`, except that a header-sourced imposter's request without the header has none
   * (SPEC §6: falling back to the port is the event stream's alone).
   */
  recordedFlowId(request: { headers: Record<string, string | string[]> }): string | undefined {
    if (this.flowIdSource.kind === 'port') return String(this.port);
    return headerFlowId(this.flowIdSource.name, request.headers);
  }

  /**
   * SPEC §2.8 rule 2 when stubs change: a noop-store imposter that gains a script or scenario stub gets
   * the implicit in-memory store. A store never goes back to noop (its state outlives stub edits).
   */
  private upgradeFlowStore(configs: ReadonlyArray<Record<string, unknown>>): void {
    if (this.store.backend !== 'noop' || flowStateOf(this.config) !== undefined) return;
    if (!stubsNeedFlowStore(configs)) return;
    this.store = implicitFlowStore(this.log, this.port, this.observers);
  }

  liveStub(stub: StubDefinition): LiveStub {
    const configs = (stub.config.responses as Array<Record<string, unknown>>);
    const compiled = configs.map((r) => compileResponse(r, this.defaults, { settings: this.scriptSettings, stub: stub.config }));
    const stateOps = compileStateOps(configs);
    return { config: stub.config, cycle: new ResponseCycle(compiled, configs), ...(stateOps ? { stateOps } : {}) };
  }

  /** Swaps the stub list and recompiles the matcher once (predicates are never compiled per request). */
  setStubs(stubs: LiveStub[]): void {
    this.upgradeFlowStore(stubs.map((s) => s.config));
    this.adopt(stubs);
  }

  /** Everything derived from the stub list, computed once per change: matcher, script predicates, gates, warnings, the tcp-fault flag. */
  private adopt(stubs: LiveStub[]): void {
    const configs = stubs.map((s) => s.config);
    this.matcher = compileStubSet(configs);
    this.predicateScripts = predicateScriptsOf(configs, this.scriptSettings, this.port);
    this.gates = StubGates.compile(configs);
    this.stubList = stubs;
    this.analyse(configs);
    this.usesTcpFault = stubsUseTcpFault(configs);
  }

  /** Proxy recording (SPEC §2.3): a new stub at `index`, added while serving. */
  insertStub(index: number, config: Record<string, unknown>): void {
    const next = [...this.stubList];
    next.splice(index, 0, this.liveStub({ config }));
    this.setStubs(next);
    this.observers.onLifecycle('stubsChanged', this.port);
  }

  /** Proxy recording (proxyAlways): a response appended to the stub at `index`; its cycle continues. */
  addStubResponse(index: number, response: Record<string, unknown>): void {
    const stub = this.stubList[index];
    (stub.config.responses as unknown[]).push(response);
    stub.cycle.push(compileResponse(response, this.defaults, { settings: this.scriptSettings, stub: stub.config }), response);
    this.observers.onLifecycle('stubsChanged', this.port);
  }

  private readonly logLine = (message: string): void => this.log.warn(`imposter ${this.port}: ${message}`);

  /** Logs only warnings the last analysis did not have, so stub-by-stub edits do not repeat the list. */
  private analyse(configs: ReadonlyArray<Record<string, unknown>>): void {
    const known = new Set(this.warnings.map((w) => w.message));
    const ignored = ignoredConfigKeys(this.config, configs).map((key): StubWarning => ({ warningType: 'config_key_ignored', ...key }));
    this.warnings = [...ignored, ...analyzeStubs(configs)];
    for (const w of this.warnings) {
      if (known.has(w.message)) continue;
      // A catch-all stub is the usual last stub, not a mistake: warn-level noise for every imposter.
      if (w.warningType === 'catch_all') this.log.debug(`imposter ${this.port}: ${w.warningType}: ${w.message}`);
      else this.log.warn(`imposter ${this.port}: ${w.warningType}: ${w.message}`);
    }
  }

  stubConfigs(): Array<Record<string, unknown>> {
    return this.stubList.map((s) => cloneJson(s.config));
  }

  /** Entry point for every request reaching this imposter (its port, the gateway, later the front door). */
  handle(wire: WireRequest, given: ResponseSink): void {
    const started = this.recordRequests ? performance.now() : 0;
    let request: MockRequest;
    try {
      request = toMockRequest(wire);
    } catch (err) {
      this.log.error(`imposter ${this.port}: cannot read request: ${(err as Error).message}`);
      this.send(given, errorResponse('bad_request', 'Malformed request'));
      return;
    }
    const sink = this.logRequests
      ? new LoggedSink(given, request.method, request.path, (line) => this.log.debug(`${this.protocol}:${this.port} ${line}`))
      : given;
    this.numberOfRequests += 1;
    const record = this.recordRequests ? this.journal.append(recordOf(request)) : undefined;
    if (wantsDebug(wire.rawHeaders)) {
      this.debug(request, sink, record);
      return;
    }
    if (!this.enabled) {
      this.finish(request, sink, this.defaultPrepared, record, started);
      return;
    }
    this.gatedMatch(request, sink, record, started, wire.url, 0, record ? [] : undefined);
  }

  /** Matching from stub `from` on, gated by spaces and scenario states when the stubs have them (SPEC §2.1 rule 5). */
  private gatedMatch(
    request: MockRequest, sink: ResponseSink, record: JournalEntry<RecordedRequest> | undefined, started: number, url: string,
    from: number, trace: MatchTried[] | undefined,
  ): void {
    const gated = this.gates?.forRequest(this.matchContext, this.flowIdOf(request), this.store);
    if (gated instanceof Promise) {
      gated.then(
        (ready) => this.match(request, sink, record, started, url, ready, from, trace),
        (err: unknown) => this.failFlowStore(err, request.method, sink, record, started),
      );
    } else {
      this.match(request, sink, record, started, url, gated, from, trace);
    }
  }

  private match(
    request: MockRequest, sink: ResponseSink, record: JournalEntry<RecordedRequest> | undefined, started: number, url: string,
    gated: GatedRequest | undefined, from: number, trace: MatchTried[] | undefined,
  ): void {
    const mark = trace?.length ?? 0;
    let found: number | Promise<number>;
    try {
      found = this.matcher.firstMatch(request, gated?.context ?? this.matchContext, from, trace);
    } catch (err) {
      this.failMatch(err, request.method, sink, record, started);
      return;
    }
    if (typeof found === 'number') {
      this.serve(found, request, sink, record, trace, started, url, gated, from, mark);
    } else {
      found.then(
        (index) => this.serve(index, request, sink, record, trace, started, url, gated, from, mark),
        (err: unknown) => this.failMatch(err, request.method, sink, record, started),
      );
    }
  }

  /**
   * The chosen stub moves its scenario (SPEC §3) before it answers, so the client's next request sees
   * the new state. On a shared store the move is a compare-and-set from the state the stub was matched
   * under; when that state changed meanwhile (another process, an admin call), nothing moved and the
   * request is matched again from `from` (its `tried` entries of this attempt dropped).
   */
  private serve(
    index: number, request: MockRequest, sink: ResponseSink,
    record: JournalEntry<RecordedRequest> | undefined, trace: MatchTried[] | undefined, started: number, url: string,
    gated: GatedRequest | undefined, from: number, mark: number,
  ): void {
    const moved = gated !== undefined && index >= 0 ? gated.served(index) : undefined;
    if (moved === undefined) {
      this.respond(index, request, sink, record, trace, started, url);
      return;
    }
    moved.then(
      (applied) => {
        if (applied) {
          this.respond(index, request, sink, record, trace, started, url);
          return;
        }
        if (trace) trace.length = mark;
        this.gatedMatch(request, sink, record, started, url, from, trace);
      },
      (err: unknown) => this.failFlowStore(err, request.method, sink, record, started),
    );
  }

  /** SPEC §7: the flow store failing while reading or moving scenario state is a 503. */
  private failFlowStore(err: unknown, method: string, sink: ResponseSink, record: JournalEntry<RecordedRequest> | undefined, started: number): void {
    const message = `flow store unavailable: ${(err as Error)?.message ?? String(err)}`;
    this.log.error(`imposter ${this.port}: ${message}`);
    const response = errorResponse('service_unavailable', message);
    this.send(sink, response);
    if (this.observers.hasRequestObservers) this.observers.onRequest(this.port, method, response.statusCode);
    if (record) this.stamp(record, response.statusCode, started);
  }

  /** SPEC §4.12: match only and answer the report; no response runs, the cycle stays, nothing is stamped. */
  private debug(request: MockRequest, sink: ResponseSink, record: JournalEntry<RecordedRequest> | undefined): void {
    if (record) this.observers.onRecorded(this.port, record.index, record.value, this.flowIdOf(record.value));
    const fail = (err: unknown): void => {
      this.log.error(`imposter ${this.port}: debug matching failed: ${(err as Error)?.message ?? String(err)}`);
      // SPEC §7: a script deadline during debug matching is a 504 marked as a timeout.
      const timedOut = err instanceof ScriptTimeoutError || (err instanceof ScriptFailure && err.response.statusCode === 504);
      const response = timedOut
        ? errorResponse('debug_timeout', 'Debug matching timed out', { headers: TIMEOUT_HEADERS })
        : errorResponse('internal_error', 'Debug matching failed');
      this.send(sink, response);
      if (this.observers.hasRequestObservers) this.observers.onRequest(this.port, request.method, response.statusCode);
    };
    const answer = (outcome: DebugOutcome): void => {
      let body: Buffer;
      try {
        const stubs = this.stubList.map((s) => ({ config: s.config, upcoming: s.cycle.responses[s.cycle.peek()] }));
        const imposter = { port: this.port, name: this.config.name, protocol: this.protocol };
        body = Buffer.from(JSON.stringify(debugReport(request, imposter, stubs, outcome), null, 2));
      } catch (err) {
        fail(err);
        return;
      }
      this.send(sink, { statusCode: 200, headers: DEBUG_HEADERS, body });
      if (this.observers.hasRequestObservers) this.observers.onRequest(this.port, request.method, 200);
    };
    const debugOutcome = (index: number): DebugOutcome =>
      index >= 0 ? { matched: index } : { unmatched: this.stubList.length === 0 ? 'imposter has no stubs' : 'no stub matched the request' };
    if (!this.enabled) {
      answer({ unmatched: 'imposter is disabled' });
      return;
    }
    const run = (ctx: MatchContext): void => {
      let found: number | Promise<number>;
      try {
        found = this.matcher.firstMatch(request, ctx, 0);
      } catch (err) {
        fail(err);
        return;
      }
      if (typeof found === 'number') answer(debugOutcome(found));
      else found.then((index) => answer(debugOutcome(index)), fail);
    };
    // Gated like a real request (spaces, scenario states), but nothing moves.
    const gated = this.gates?.forRequest(this.matchContext, this.flowIdOf(request), this.store);
    if (gated instanceof Promise) gated.then((ready) => run(ready.context), fail);
    else run(gated?.context ?? this.matchContext);
  }

  /** A `_svc.script` predicate (SPEC §2.7 `matches(ctx)`); a failed run ends the request (ScriptFailure). */
  private async runPredicateScript(predicate: Record<string, unknown>, request: MockRequest): Promise<boolean> {
    const found = this.predicateScripts.get(predicate);
    if (!found || !this.scope.svc) throw new Error('_svc.script predicate is not available');
    return (await runOrFail(found.script, this.scope.svc, { request, ruleId: found.ruleId })).value === true;
  }

  private failMatch(err: unknown, method: string, sink: ResponseSink, record: JournalEntry<RecordedRequest> | undefined, started: number): void {
    if (err instanceof FlowStoreUnavailable) {
      this.failFlowStore(err, method, sink, record, started);
      return;
    }
    const message = (err as Error)?.message ?? String(err);
    this.log.error(`imposter ${this.port}: predicate evaluation failed: ${message}`);
    // mountebank answers a predicate that throws while matching with 500; a failing injected predicate
    // is a 400, and one that overran its deadline a 504 (SPEC §7).
    const response = err instanceof ScriptFailure ? err.response : err instanceof PredicateError
      ? errorResponse('predicate_error', message)
      : scriptFailure(err, 'predicate') ?? errorResponse('invalid_predicate_injection', message);
    this.send(sink, response);
    if (this.observers.hasRequestObservers) this.observers.onRequest(this.port, method, response.statusCode);
    if (record) this.stamp(record, response.statusCode, started);
  }

  private respond(
    index: number, request: MockRequest, sink: ResponseSink,
    record: JournalEntry<RecordedRequest> | undefined, trace: MatchTried[] | undefined, started: number, url: string,
    /** The response taken from the cycle (and its config index) whose `_svc.stateOps` ran first. */
    taken?: { compiled: CompiledResponse; configIndex: number },
  ): void {
    const stub = index >= 0 ? this.stubList[index] : undefined;
    if (sink instanceof LoggedSink) sink.stubIndex = index;
    if (record) {
      record.value.matchOutcome = outcomeOf(index, stub?.config.id as string | undefined, trace && this.withIds(trace));
    }
    if (!stub) {
      this.finish(request, sink, this.defaultPrepared, record, started);
      return;
    }
    const ops = taken ? undefined : stub.stateOps?.[stub.cycle.peek()];
    if (ops) {
      // Taken now, so a request arriving while the ops await cannot get this response (or its ops).
      const next = { configIndex: stub.cycle.peek(), compiled: stub.cycle.next() };
      applyStateOps(this.store, this.flowIdOf(request), ops).then(
        () => this.respond(index, request, sink, record, trace, started, url, next),
        (err: unknown) => this.failStateOps(err, request, sink, record, started),
      );
      return;
    }
    const debugAt = this.debugMatches ? performance.now() : 0;
    const configIndex = !this.debugMatches ? -1 : taken ? taken.configIndex : stub.cycle.peek();
    const compiled = taken?.compiled ?? stub.cycle.next();
    if (!compiled.dynamic) {
      this.finish(request, sink, compiled.prepared!, record, started);
      if (configIndex >= 0) this.recordMatch(stub, configIndex, request, undefined, debugAt);
      return;
    }
    const ctx = {
      request, imposter: this.scope, stubIndex: index, stubId: stub.config.id as string | undefined,
      url, stubs: this, log: this.logLine, proxyObserver: this.observers,
    };
    resolveResponse(compiled, ctx).then(
      (outcome) => {
        if (outcome.kind === 'pass') {
          this.passOn(index, request, sink, record, trace, started, url);
          return;
        }
        this.deliver(outcome, request, sink, record, started);
        if (configIndex >= 0) this.recordMatch(stub, configIndex, request, outcome.kind === 'http' ? outcome.response : undefined, debugAt);
      },
      (err: unknown) => {
        this.log.error(`imposter ${this.port}: response failed: ${(err as Error)?.stack ?? String(err)}`);
        this.finish(request, sink, errorResponse('internal_error', (err as Error)?.message ?? String(err)), record, started);
      },
    );
  }

  /**
   * mountebank's `--debug` match entry: the request as recorded, the response (a static `is` as
   * configured, anything else as served) and the response config used.
   */
  private recordMatch(stub: LiveStub, configIndex: number, request: MockRequest, served: PreparedResponse | undefined, started: number): void {
    const responseConfig = cloneJson((stub.config.responses as Array<Record<string, unknown>>)[configIndex]);
    const { timestamp, ...seen } = recordOf(request);
    const response = served
      ? { statusCode: served.statusCode, headers: Object.fromEntries(served.headers), body: served.body.toString('utf8') }
      : (isObject(responseConfig.is) ? cloneJson(responseConfig.is) : {});
    (stub.matches ??= []).push({
      timestamp, request: { ...seen, body: seen.body ?? '' }, response, responseConfig, processingTime: Math.round(performance.now() - started),
    });
  }

  /**
   * A `_svc.script` passed (SPEC §2.7): the next matching stub answers, or the default response; still
   * gated by spaces and scenario states, and the stub that answers moves its scenario.
   */
  private passOn(
    index: number, request: MockRequest, sink: ResponseSink,
    record: JournalEntry<RecordedRequest> | undefined, trace: MatchTried[] | undefined, started: number, url: string,
  ): void {
    this.gatedMatch(request, sink, record, started, url, index + 1, trace);
  }

  private deliver(outcome: ResponseOutcome, request: MockRequest, sink: ResponseSink, record: JournalEntry<RecordedRequest> | undefined, started: number): void {
    if (outcome.kind === 'http') {
      this.finish(request, sink, outcome.response, record, started);
    } else if (outcome.kind === 'pass') {
      this.finish(request, sink, this.defaultPrepared, record, started);
    } else if (!applyTransportFault(outcome.fault, sink)) {
      if (!this.unknownFaultServesDefault) {
        this.deliver(unknownFault(outcome.fault), request, sink, record, started);
        return;
      }
      this.log.error(`${this.protocol}:${this.port} unknown fault '${outcome.fault}' ignored (mountebank compatibility)`);
      this.finish(request, sink, this.defaultPrepared, record, started);
    }
  }

  private withIds(trace: MatchTried[]): TriedEntry[] {
    return trace.map((t) => {
      const id = this.stubList[t.stubIndex]?.config.id;
      return typeof id === 'string' ? { stubIndex: t.stubIndex, stubId: id, why: t.why } : { stubIndex: t.stubIndex, why: t.why };
    });
  }

  private finish(
    request: MockRequest, sink: ResponseSink, prepared: PreparedResponse,
    record: JournalEntry<RecordedRequest> | undefined, started: number,
  ): void {
    const response = this.allowCORS ? withCorsPreflight(prepared, request.method, request.headers) : prepared;
    this.send(sink, response);
    if (this.observers.hasRequestObservers) this.observers.onRequest(this.port, request.method, response.statusCode);
    if (record) this.stamp(record, response.statusCode, started);
  }

  private stamp(record: JournalEntry<RecordedRequest>, status: number, started: number): void {
    record.value.status = status;
    record.value.latencyMs = Math.round(performance.now() - started);
    this.observers.onRecorded(this.port, record.index, record.value, this.flowIdOf(record.value));
  }

  /** SPEC §2.3/§7: a flow store failure while applying `_svc.stateOps` answers that request with a 500. */
  private failStateOps(err: unknown, request: MockRequest, sink: ResponseSink, record: JournalEntry<RecordedRequest> | undefined, started: number): void {
    const message = (err as Error)?.message ?? String(err);
    this.log.error(`imposter ${this.port}: _svc.stateOps failed: ${message}`);
    this.finish(request, sink, errorResponse('flow_state_error', `_svc.stateOps failed: ${message}`), record, started);
  }

  private send(sink: ResponseSink, response: PreparedResponse): void {
    try {
      sink.send(response.statusCode, response.headers, response.body);
    } catch (err) {
      this.log.error(`imposter ${this.port}: cannot write response: ${(err as Error).message}`);
      sink.reset();
    }
  }
}

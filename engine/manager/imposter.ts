import { performance } from 'node:perf_hooks';
import type { MockRequest, WireRequest } from '../model/index.js';
import type { ImposterDefinition, StubDefinition } from '../validate/index.js';
import { cloneJson, hasFlowGate, isObject, PatternTimeout, plainRequest, predicatesAreScripted, toMockRequest } from '../model/index.js';
import {
  compileStubSet,
  explainStubs,
  PredicateError,
  type MatchContext,
  type StubExplanation,
  type StubSetMatcher,
  type TriedEntry as MatchTried,
} from '../match/index.js';
import {
  applyTransportFault,
  compileDefaultResponse,
  errorResponse,
  compileResponse,
  faultRandom,
  resolveResponse,
  ResponseCycle,
  scriptFailure,
  stubsUseTcpFault,
  unknownFault,
  stubPredicateScripts,
  runOrFail,
  ScriptFailure,
  type CompiledScript,
  newCycleSlot,
  withCorsPreflight,
  type CompiledResponse,
  type ImposterScope,
  type IsFields,
  type PreparedResponse,
  type ResponseOutcome,
  weakProxyCertificates,
} from '../respond/index.js';
import type { Listener, ResponseSink } from '../transport/index.js';
import { JournalRing, type JournalEntry } from '../journal/index.js';
import { outcomeOf, recordOf, type RecordedRequest, type TriedEntry } from './recorded-request.js';
import type { Logger } from '../log/index.js';
import type { ObserverSet } from './observer.js';
import { LoggedSink } from './request-log.js';
import { openExchange, type Exchange } from './exchange.js';
import {
  StubAnalysis,
  debugReport,
  imposterIgnoredKeys,
  stubIgnoredKeys,
  stubKeyAt,
  wantsDebug,
  type IgnoredKey,
  type DebugOutcome,
  type StubWarning,
} from '../analysis/index.js';
import { scriptTimeoutOf, ScriptTimeoutError, type JsScriptHost } from '../script/js/index.js';
import {
  flowIdSourceFor,
  flowStateOf,
  headerFlowId,
  implicitFlowStore,
  localFlowStore,
  requestFlowId,
  stubsNeedFlowStore,
  applyStateOps,
  compileStateOps,
  FlowStoreUnavailable,
  StubGates,
  type FlowIdSource,
  type FlowStore,
  type StateOp,
} from '../state/index.js';
import { scriptSettingsOf, type ScriptSettings, type SvcScriptRunner } from '../script/svc/index.js';
import { exactBytes, ThreadCounter, type LocalPlan, type PlanSource } from '../runtime/index.js';

/** A stub as served: its read-back config plus the response cycle (cycling state survives unrelated edits). */
export interface LiveStub {
  config: Record<string, unknown>;
  cycle: ResponseCycle<CompiledResponse>;
  /** mountebank's `--debug`: what this stub matched and answered, oldest first (read back as `matches`). */
  matches?: Array<Record<string, unknown>>;
  /** `_svc.stateOps` by response index (SPEC §2.3); absent when no response has any. */
  stateOps?: Array<StateOp[] | undefined>;
  /** The stub as given, when it held null fields `config` leaves out (StubDefinition.given). */
  given?: Record<string, unknown>;
  /** What the stub set needs to know of this stub, derived once when the stub is made (an edit then costs the stubs it brings). */
  traits: StubTraits;
}

interface StubTraits {
  /** A response is a TCP fault (new connections get HTTP/1 only). */
  tcpFault: boolean;
  /** SPEC §2.8 rule 2: a script, stateOps or scenario field needs a flow store. */
  needsFlowStore: boolean;
  /** Its `_svc.script` predicates, compiled. */
  scripts: Array<{ predicate: object; script: CompiledScript }>;
  /** A space or scenario field (matching rule 5). */
  flowGate: boolean;
  /** Keys it has that svc ignores, paths relative to the stub (SPEC §9.6). */
  ignoredKeys: readonly IgnoredKey[];
}

const DEBUG_HEADERS: Array<[string, string]> = [
  ['Content-Type', 'application/json'],
  ['X-Svc-Debug-Response', 'true'],
];
const TIMEOUT_HEADERS: Array<[string, string]> = [
  ['Content-Type', 'application/json'],
  ['x-svc-script-timeout', 'true'],
];

/** What an imposter is built from: its definition and port, and what the manager shares with it. */
export interface ImposterOptions {
  definition: ImposterDefinition;
  port: number;
  log: Logger;
  observers: ObserverSet;
  /** The manager's JavaScript sandbox, started on first use. */
  scriptHost: () => JsScriptHost;
  /** The manager's `_svc.script` workers, started on first use; without them `_svc.script` cannot run. */
  svcRunner?: () => SvcScriptRunner;
  /** mountebank's `--mock`: record even when the config's recordRequests is false (read back as written). */
  recordAll?: boolean;
  /** mountebank's `--debug`: stubs keep their matches. */
  debugMatches?: boolean;
  /** An opened store (redis, or the one a replaced imposter hands over); else built from the config. */
  flowStore?: FlowStore;
  /** mountebank 2.9.1 answers an unknown fault name with the default response (SPEC §2.6: 500 `Unknown fault`). */
  unknownFaultServesDefault?: boolean;
  /**
   * Per-core runtime: numberOfRequests and every stub's cycle position live in shared memory, so engine
   * threads answering from this imposter's plan (PlanSource) step the same ones.
   */
  sharedState?: boolean;
  /** With sharedState: how many threads count requests (the main thread is slot 0). */
  threads?: number;
  /** Makes a stub list changed by a proxy recording durable (the data directory); it logs its own failures. */
  persistRecorded?: () => void;
}

const NONE: readonly never[] = Object.freeze([]);

/** The shared empty list for an empty one: most stubs have no scripts and no ignored keys. */
function orShared<T>(list: T[]): T[] {
  return list.length === 0 ? (NONE as unknown as T[]) : list;
}

/** A PreparedResponse as it crosses to an engine thread: the body's own bytes, not its pooled slab. */
function portableResponse(response: PreparedResponse): PreparedResponse {
  return { statusCode: response.statusCode, headers: response.headers, body: exactBytes(response.body) as Buffer };
}

/** One running imposter: its stubs, compiled matcher, journal and listener. */
export class Imposter implements PlanSource {
  readonly port: number;
  readonly protocol: string;
  /** Everything given at creation except stubs (read-back and replayable output). */
  readonly config: Record<string, unknown>;
  private isEnabled = true;
  /** numberOfRequests: a field on one loop, shared memory under per-core (`sharedCount`). */
  private localCount = 0;
  private readonly sharedCount: ThreadCounter | undefined;
  /** Per-core: tells the runtime to publish a new plan (stubs or enabled changed). */
  private planChanged: (() => void) | undefined;
  readonly journal = new JournalRing<RecordedRequest>();
  listener: Listener | undefined;
  /** https only: the server's TLS settings as mountebank reports them (imposter-json.ts tlsMetadata). */
  tls: Record<string, unknown> | undefined;
  /** Some stub answers with a TCP fault: new connections get HTTP/1 only (SPEC §1 rule 3). */
  usesTcpFault = false;
  /** Stub analysis (SPEC §2.10), recomputed whenever the stub list changes. */
  warnings: readonly StubWarning[] = [];
  /** Weak proxy client certificates already logged, so each is warned about once. */
  private readonly weakTlsLogged = new Set<string>();
  /** Keeps what it learnt of the stubs, so a stub appended is analysed alone. */
  private readonly analysis = new StubAnalysis();
  /** The imposter's own ignored keys (its config does not change). */
  private readonly ignoredKeys: readonly IgnoredKey[];
  private stubList: LiveStub[] = [];
  /** Set by `adopt`, from the constructor on. */
  private matcher!: StubSetMatcher;
  /** Matching rule 5 (spaces, scenario states); undefined when no stub has those fields. */
  private gates: StubGates | undefined;
  private readonly defaults: IsFields | undefined;
  private readonly defaultPrepared: PreparedResponse;
  private readonly recordRequests: boolean;
  private readonly allowCORS: boolean;
  private readonly debugMatches: boolean;
  private readonly unknownFaultServesDefault: boolean;
  private readonly log: Logger;
  private readonly persistRecorded: (() => void) | undefined;
  private readonly observers: ObserverSet;
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

  constructor(options: ImposterOptions) {
    const { definition, port, log, observers, scriptHost, svcRunner } = options;
    this.log = log;
    this.observers = observers;
    this.debugMatches = options.debugMatches === true;
    this.unknownFaultServesDefault = options.unknownFaultServesDefault === true;
    this.port = port;
    if (options.sharedState) this.sharedCount = ThreadCounter.forThreads(options.threads ?? 1);
    this.persistRecorded = options.persistRecorded;
    this.protocol = definition.protocol;
    this.config = { ...definition.config, port };
    this.ignoredKeys = imposterIgnoredKeys(this.config);
    this.recordRequests = options.recordAll === true || definition.config.recordRequests === true;
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
    this.store =
      options.flowStore
      ?? localFlowStore(
        definition.config,
        definition.stubs.map((s) => s.config),
        port,
        log,
        observers,
      );
    this.adopt(definition.stubs.map((stub) => this.liveStub(stub)));
  }

  get enabled(): boolean {
    return this.isEnabled;
  }

  set enabled(value: boolean) {
    this.isEnabled = value;
    this.planChanged?.();
  }

  get numberOfRequests(): number {
    return this.sharedCount ? this.sharedCount.total() : this.localCount;
  }

  set numberOfRequests(value: number) {
    if (this.sharedCount) this.sharedCount.set(value);
    else this.localCount = value;
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
  private upgradeFlowStore(stubs: readonly LiveStub[]): void {
    if (this.store.backend !== 'noop' || flowStateOf(this.config) !== undefined) return;
    if (!stubs.some((s) => s.traits.needsFlowStore)) return;
    this.store = implicitFlowStore(this.log, this.port, this.observers);
  }

  liveStub(stub: StubDefinition): LiveStub {
    const configs = stub.config.responses as Array<Record<string, unknown>>;
    const compiled = configs.map((r) => compileResponse(r, this.defaults, { settings: this.scriptSettings, stub: stub.config }));
    const stateOps = compileStateOps(configs);
    const cycle = new ResponseCycle(compiled, configs, this.sharedCount ? newCycleSlot() : undefined);
    const traits = {
      tcpFault: stubsUseTcpFault([stub.config]),
      needsFlowStore: stubsNeedFlowStore([stub.config]),
      scripts: orShared(stubPredicateScripts(stub.config, this.scriptSettings)),
      flowGate: hasFlowGate(stub.config),
      ignoredKeys: orShared(stubIgnoredKeys(stub.config)),
    };
    return { config: stub.config, cycle, traits, ...(stateOps ? { stateOps } : {}), ...(stub.given ? { given: stub.given } : {}) };
  }

  /** Swaps the stub list and recompiles the matcher once (predicates are never compiled per request). */
  setStubs(stubs: LiveStub[]): void {
    this.upgradeFlowStore(stubs);
    this.adopt(stubs);
  }

  /**
   * Everything derived from the stub list, once per change: matcher, script predicates, gates, warnings,
   * the tcp-fault flag. Each stub's own part was derived when it was made (LiveStub traits, and the
   * matcher's and analysis' per-config caches), so this pass only gathers.
   */
  private adopt(stubs: LiveStub[]): void {
    const configs = new Array<Record<string, unknown>>(stubs.length);
    const scripts = new WeakMap<object, { script: CompiledScript; ruleId: string }>();
    let tcpFault = false;
    let flowGate = false;
    for (let index = 0; index < stubs.length; index++) {
      const { config, traits } = stubs[index]!;
      configs[index] = config;
      tcpFault ||= traits.tcpFault;
      flowGate ||= traits.flowGate;
      if (traits.scripts.length === 0) continue;
      const ruleId = typeof config.id === 'string' ? config.id : `${this.port}:${index}`;
      for (const { predicate, script } of traits.scripts) scripts.set(predicate, { script, ruleId });
    }
    this.matcher = compileStubSet(configs, { previous: this.matcher });
    this.predicateScripts = scripts;
    this.gates = flowGate ? StubGates.compile(configs) : undefined;
    this.stubList = stubs;
    this.analyse(stubs, configs);
    this.usesTcpFault = tcpFault;
    this.planChanged?.();
  }

  /** Proxy recording (SPEC §2.3): a new stub at `index`, added while serving. */
  insertStub(index: number, config: Record<string, unknown>): void {
    const next = [...this.stubList];
    next.splice(index, 0, this.liveStub({ config }));
    this.setStubs(next);
    this.persistRecorded?.();
    this.observers.onLifecycle('stubsChanged', this.port);
  }

  /** Proxy recording (proxyAlways): a response appended to the stub at `index`; its cycle continues. */
  addStubResponse(index: number, response: Record<string, unknown>): void {
    const stub = this.stubList[index];
    (stub.config.responses as unknown[]).push(response);
    if (!stub.traits.tcpFault && stubsUseTcpFault([{ responses: [response] }])) {
      stub.traits.tcpFault = true;
      this.usesTcpFault = true;
    }
    stub.cycle.push(compileResponse(response, this.defaults, { settings: this.scriptSettings, stub: stub.config }), response);
    this.planChanged?.();
    this.persistRecorded?.();
    this.observers.onLifecycle('stubsChanged', this.port);
  }

  private readonly logLine = (message: string): void => this.log.warn(`imposter ${this.port}: ${message}`);

  /** Logs only warnings the last analysis did not have, so stub-by-stub edits do not repeat the list. */
  private analyse(stubs: readonly LiveStub[], configs: ReadonlyArray<Record<string, unknown>>): void {
    const known = new Set(this.warnings.map((w) => w.message));
    const ignored: StubWarning[] = this.ignoredKeys.map((key) => ({ warningType: 'config_key_ignored', ...key }));
    for (let index = 0; index < stubs.length; index++) {
      for (const key of stubs[index]!.traits.ignoredKeys) ignored.push({ warningType: 'config_key_ignored', ...stubKeyAt(key, index) });
    }
    this.warnings = [...ignored, ...this.analysis.update(configs)];
    for (const w of this.warnings) {
      if (known.has(w.message)) continue;
      // A catch-all stub is the usual last stub, not a mistake: warn-level noise for every imposter.
      if (w.warningType === 'catch_all') this.log.debug(`imposter ${this.port}: ${w.warningType}: ${w.message}`);
      else this.log.warn(`imposter ${this.port}: ${w.warningType}: ${w.message}`);
    }
    for (const line of weakProxyCertificates(configs)) {
      if (this.weakTlsLogged.has(line)) continue;
      this.weakTlsLogged.add(line);
      this.log.warn(`imposter ${this.port}: ${line}: presented anyway (accepted at OpenSSL security level 0)`);
    }
  }

  /**
   * `render()` run as if the stub list were `stubs` (nothing compiled, nothing announced, restored before
   * it returns): the durable form of a stub change before it is applied.
   */
  renderingStubs<T>(stubs: readonly LiveStub[], render: () => T): T {
    const live = this.stubList;
    this.stubList = stubs as LiveStub[];
    try {
      return render();
    } finally {
      this.stubList = live;
    }
  }

  stubConfigs(): Array<Record<string, unknown>> {
    return this.stubList.map((s) => cloneJson(s.config));
  }

  /** Each stub's config with the stub as given, where it held null fields (read back by `--compat mountebank`). */
  stubsWithGiven(): Array<{ config: Record<string, unknown>; given?: Record<string, unknown> }> {
    return this.stubList.map((s) => ({ config: cloneJson(s.config), ...(s.given ? { given: s.given } : {}) }));
  }

  /**
   * True when a request could be answered from the stub configs alone, by any thread: the imposter is
   * enabled, records and logs nothing per request (recordRequests, --mock, --debug, debug log level),
   * has no CORS, spaces, scenarios or `_svc.stateOps`, no scripted predicate, and every response is a
   * static `is` (no behaviors, proxy, inject, fault or script). Such a path still shares each stub's
   * cycle position, numberOfRequests and observers.onRequest, and hands requests that want a debug
   * report (analysis `wantsDebug`) to `handle`. A walk over the stubs: read it when stubs change.
   */
  answersStatically(): boolean {
    if (!this.enabled || this.recordRequests || this.debugMatches || this.logRequests || this.allowCORS || this.gates) return false;
    return this.stubList.every(
      (stub) => !stub.stateOps && !predicatesAreScripted(stub.config.predicates) && stub.cycle.responses.every((response) => !response.dynamic),
    );
  }

  // ---- PlanSource (per-core runtime) ----

  /** What engine threads need to answer requests themselves; undefined when only `handle` can (see answersStatically). */
  plan(): LocalPlan | undefined {
    if (!this.sharedCount || !this.answersStatically()) return undefined;
    return {
      stubs: this.stubList.map((stub) => ({
        predicates: stub.config.predicates,
        configs: stub.config.responses as Array<Record<string, unknown>>,
        responses: stub.cycle.responses.map((response) => portableResponse(response.prepared!)),
        cycle: stub.cycle.slot!,
      })),
      fallback: portableResponse(this.defaultPrepared),
      count: this.sharedCount.buffer,
    };
  }

  onPlanChange(changed: () => void): void {
    this.planChanged = changed;
  }

  answered(method: string, status: number, times: number): void {
    if (!this.observers.hasRequestObservers) return;
    for (let i = 0; i < times; i += 1) this.observers.onRequest(this.port, method, status);
  }

  /**
   * Entry point for every request reaching this imposter (its port, the gateway, the front door, the
   * per-core runtime). Stages: match (gates, predicates, scenario move) → respond (cycle, stateOps,
   * dynamic response) → faults → answer (send, count, record); a debug request is matched and reported.
   */
  handle(wire: WireRequest, given: ResponseSink): void {
    const started = this.recordRequests ? performance.now() : 0;
    let request: MockRequest;
    try {
      request = toMockRequest(wire);
    } catch (err) {
      // No exchange yet: an unreadable request is neither counted nor recorded.
      this.log.error(`imposter ${this.port}: cannot read request: ${(err as Error).message}`);
      this.write(given, errorResponse('bad_request', 'Malformed request'));
      return;
    }
    const sink = this.logRequests
      ? new LoggedSink(given, request.method, request.path, (line) => this.log.debug(`${this.protocol}:${this.port} ${line}`))
      : given;
    if (this.sharedCount) this.sharedCount.add(0);
    else this.localCount += 1;
    const record = this.recordRequests ? this.journal.append(recordOf(request)) : undefined;
    const ex = openExchange(request, sink, wire.url, record, started);
    if (wantsDebug(wire.rawHeaders)) {
      this.debug(ex);
      return;
    }
    if (!this.enabled) {
      ex.stage = 'respond';
      this.answer(ex, this.defaultPrepared);
      return;
    }
    this.gate(ex);
  }

  /** Match stage, first step: gated by spaces and scenario states when the stubs have them (SPEC §2.1 rule 5). */
  private gate(ex: Exchange): void {
    ex.stage = 'match';
    const gated = this.gates?.forRequest(this.matchContext, this.flowIdOf(ex.request), this.store);
    if (gated instanceof Promise) {
      gated.then(
        (ready) => {
          ex.gated = ready;
          this.match(ex);
        },
        (err: unknown) => this.failFlowStore(ex, err),
      );
    } else {
      ex.gated = gated;
      this.match(ex);
    }
  }

  /** Match stage: the first stub at or after `ex.from` whose predicates hold. */
  private match(ex: Exchange): void {
    ex.mark = ex.trace?.length ?? 0;
    let found: number | Promise<number>;
    try {
      found = this.matcher.firstMatch(ex.request, ex.gated?.context ?? this.matchContext, ex.from, ex.trace);
    } catch (err) {
      this.failMatch(ex, err);
      return;
    }
    if (typeof found === 'number') {
      this.settle(ex, found);
    } else {
      found.then(
        (index) => this.settle(ex, index),
        (err: unknown) => this.failMatch(ex, err),
      );
    }
  }

  /**
   * Match stage, last step: the chosen stub moves its scenario (SPEC §3) before it answers, so the
   * client's next request sees the new state. On a shared store the move is a compare-and-set from the
   * state the stub was matched under; when that state changed meanwhile (another process, an admin
   * call), nothing moved and the request is matched again from `from` (this attempt's `tried` dropped).
   */
  private settle(ex: Exchange, index: number): void {
    ex.index = index;
    const moved = ex.gated !== undefined && index >= 0 ? ex.gated.served(index) : undefined;
    if (moved === undefined) {
      this.respond(ex);
      return;
    }
    moved.then(
      (applied) => {
        if (applied) {
          this.respond(ex);
          return;
        }
        if (ex.trace) ex.trace.length = ex.mark;
        this.gate(ex);
      },
      (err: unknown) => this.failFlowStore(ex, err),
    );
  }

  /** SPEC §7: the flow store failing while reading or moving scenario state is a 503. */
  private failFlowStore(ex: Exchange, err: unknown): void {
    const message = `flow store unavailable: ${(err as Error)?.message ?? String(err)}`;
    this.answer(ex, errorResponse('service_unavailable', message), message);
  }

  /** SPEC §4.12: match only and answer the report; no response runs, the cycle stays, nothing is stamped. */
  private debug(ex: Exchange): void {
    ex.stage = 'debug';
    const { request, record } = ex;
    if (record) this.observers.onRecorded(this.port, record.index, record.value, this.flowIdOf(record.value));
    const fail = (err: unknown): void => {
      // SPEC §7: a script deadline during debug matching is a 504 marked as a timeout.
      const timedOut = err instanceof ScriptTimeoutError || (err instanceof ScriptFailure && err.response.statusCode === 504);
      const response = timedOut
        ? errorResponse('debug_timeout', 'Debug matching timed out', { headers: TIMEOUT_HEADERS })
        : errorResponse('internal_error', 'Debug matching failed');
      this.answer(ex, response, `debug matching failed: ${(err as Error)?.message ?? String(err)}`);
    };
    const report = (outcome: DebugOutcome): void => {
      let body: Buffer;
      try {
        body = Buffer.from(JSON.stringify(this.debugReportOf(request, outcome), null, 2));
      } catch (err) {
        fail(err);
        return;
      }
      this.answer(ex, { statusCode: 200, headers: DEBUG_HEADERS, body });
    };
    const debugOutcome = (index: number): DebugOutcome => this.debugOutcome(index);
    if (!this.enabled) {
      report({ unmatched: 'imposter is disabled' });
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
      if (typeof found === 'number') report(debugOutcome(found));
      else found.then((index) => report(debugOutcome(index)), fail);
    };
    // Gated like a real request (spaces, scenario states), but nothing moves.
    const gated = this.gates?.forRequest(this.matchContext, this.flowIdOf(request), this.store);
    if (gated instanceof Promise) gated.then((ready) => run(ready.context), fail);
    else run(gated?.context ?? this.matchContext);
  }

  private debugOutcome(index: number): DebugOutcome {
    return index >= 0 ? { matched: index } : { unmatched: this.stubList.length === 0 ? 'imposter has no stubs' : 'no stub matched the request' };
  }

  private debugReportOf(request: MockRequest, outcome: DebugOutcome, candidates?: StubExplanation[]): Record<string, unknown> {
    const stubs = this.stubList.map((s) => ({ config: s.config, upcoming: s.cycle.responses[s.cycle.peek()] }));
    const imposter = { port: this.port, name: this.config.name, protocol: this.protocol };
    return debugReport(request, imposter, stubs, outcome, candidates);
  }

  /**
   * The debug report (SPEC §4.12) of a request the admin plane describes, with `candidates`: every stub's
   * failing predicates and their expected and actual values, closest first (for a match, only the stubs
   * before the one that matched). Matched like a real request (spaces, scenario states, scripts) but
   * nothing is counted, recorded, observed or moved.
   */
  async explain(request: MockRequest): Promise<Record<string, unknown>> {
    if (!this.enabled) return this.debugReportOf(request, { unmatched: 'imposter is disabled' }, []);
    const gated = await this.gates?.forRequest(this.matchContext, this.flowIdOf(request), this.store);
    const ctx = gated?.context ?? this.matchContext;
    const index = await this.matcher.firstMatch(request, ctx, 0);
    const configs = this.stubList.map((stub) => stub.config);
    const candidates = await explainStubs(index >= 0 ? configs.slice(0, index) : configs, request, ctx);
    return this.debugReportOf(request, this.debugOutcome(index), candidates);
  }

  /** A `_svc.script` predicate (SPEC §2.7 `matches(ctx)`); a failed run ends the request (ScriptFailure). */
  private async runPredicateScript(predicate: Record<string, unknown>, request: MockRequest): Promise<boolean> {
    const found = this.predicateScripts.get(predicate);
    if (!found || !this.scope.svc) throw new Error('_svc.script predicate is not available');
    return (await runOrFail(found.script, this.scope.svc, { request, ruleId: found.ruleId })).value === true;
  }

  private failMatch(ex: Exchange, err: unknown): void {
    if (err instanceof FlowStoreUnavailable) {
      this.failFlowStore(ex, err);
      return;
    }
    const message = (err as Error)?.message ?? String(err);
    if (err instanceof PatternTimeout) {
      this.log.warn(`imposter ${this.port}: ${this.stubsWithPattern(err.source)}: ${message}; the request is answered with a 500`);
      this.answer(ex, errorResponse('pattern_timeout', message), `predicate evaluation failed: ${message}`);
      return;
    }
    // mountebank answers a predicate that throws while matching with 500; a failing injected predicate
    // is a 400, and one that overran its deadline a 504 (SPEC §7).
    const response =
      err instanceof ScriptFailure
        ? err.response
        : err instanceof PredicateError
          ? errorResponse('predicate_error', message)
          : (scriptFailure(err, 'predicate') ?? errorResponse('invalid_predicate_injection', message));
    this.answer(ex, response, `predicate evaluation failed: ${message}`);
  }

  /** The stubs (index and id) whose predicates hold `source`, for the log line of a stopped pattern. */
  private stubsWithPattern(source: string): string {
    const needle = JSON.stringify(source);
    const found = this.stubList
      .map((stub, index) => ({ index, id: stub.config.id, predicates: JSON.stringify(stub.config.predicates ?? []) }))
      .filter((stub) => stub.predicates.includes(needle))
      .map((stub) => (stub.id === undefined ? `stub ${stub.index}` : `stub ${stub.index} (id ${String(stub.id)})`));
    return found.length > 0 ? found.join(', ') : 'a stub';
  }

  /**
   * Respond stage: the matched stub's next response from its cycle (the default response when none
   * matched); `_svc.stateOps` run first, and a dynamic response resolves before the faults stage.
   */
  private respond(ex: Exchange): void {
    ex.stage = 'respond';
    const index = ex.index;
    const stub = index >= 0 ? this.stubList[index] : undefined;
    if (ex.sink instanceof LoggedSink) ex.sink.stubIndex = index;
    if (ex.record) {
      ex.record.value.matchOutcome = outcomeOf(index, stub?.config.id as string | undefined, ex.trace && this.withIds(ex.trace));
    }
    if (!stub) {
      this.answer(ex, this.defaultPrepared);
      return;
    }
    const taken = ex.taken;
    ex.taken = undefined;
    const ops = taken ? undefined : stub.stateOps?.[stub.cycle.peek()];
    if (ops) {
      // Taken now, so a request arriving while the ops await cannot get this response (or its ops).
      ex.taken = { configIndex: stub.cycle.peek(), compiled: stub.cycle.next() };
      applyStateOps(this.store, this.flowIdOf(ex.request), ops).then(
        () => this.respond(ex),
        (err: unknown) => this.failStateOps(ex, err),
      );
      return;
    }
    const debugAt = this.debugMatches ? performance.now() : 0;
    const configIndex = !this.debugMatches ? -1 : taken ? taken.configIndex : stub.cycle.peek();
    const compiled = taken?.compiled ?? stub.cycle.next();
    if (!compiled.dynamic) {
      this.answer(ex, compiled.prepared!);
      if (configIndex >= 0) this.recordMatch(stub, configIndex, ex.request, undefined, debugAt);
      return;
    }
    const ctx = {
      request: ex.request,
      imposter: this.scope,
      stubIndex: index,
      stubId: stub.config.id as string | undefined,
      url: ex.url,
      stubs: this,
      log: this.logLine,
      proxyObserver: this.observers,
    };
    resolveResponse(compiled, ctx).then(
      (outcome) => {
        if (outcome.kind === 'pass') {
          // A `_svc.script` passed (SPEC §2.7): the next matching stub answers, still gated, and moves its scenario.
          ex.from = index + 1;
          this.gate(ex);
          return;
        }
        this.deliver(ex, outcome);
        if (configIndex >= 0) this.recordMatch(stub, configIndex, ex.request, outcome.kind === 'http' ? outcome.response : undefined, debugAt);
      },
      (err: unknown) => {
        const message = (err as Error)?.message ?? String(err);
        this.answer(ex, errorResponse('internal_error', message), `response failed: ${(err as Error)?.stack ?? String(err)}`);
      },
    );
  }

  /** SPEC §2.3/§7: a flow store failure while applying `_svc.stateOps` answers that request with a 500. */
  private failStateOps(ex: Exchange, err: unknown): void {
    const message = `_svc.stateOps failed: ${(err as Error)?.message ?? String(err)}`;
    this.answer(ex, errorResponse('flow_state_error', message), message);
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
      : isObject(responseConfig.is)
        ? cloneJson(responseConfig.is)
        : {};
    (stub.matches ??= []).push({
      timestamp,
      request: { ...seen, body: seen.body ?? '' },
      response,
      responseConfig,
      processingTime: Math.round(performance.now() - started),
    });
  }

  /** Faults stage: a transport fault is applied to the connection (nothing is answered); anything else is answered. */
  private deliver(ex: Exchange, outcome: ResponseOutcome): void {
    if (outcome.kind === 'http') {
      this.answer(ex, outcome.response);
    } else if (outcome.kind === 'pass') {
      this.answer(ex, this.defaultPrepared);
    } else if (!applyTransportFault(outcome.fault, ex.sink)) {
      if (!this.unknownFaultServesDefault) {
        this.deliver(ex, unknownFault(outcome.fault));
        return;
      }
      this.log.error(`${this.protocol}:${this.port} unknown fault '${outcome.fault}' ignored (mountebank compatibility)`);
      this.answer(ex, this.defaultPrepared);
    }
  }

  private withIds(trace: MatchTried[]): TriedEntry[] {
    return trace.map((t) => {
      const id = this.stubList[t.stubIndex]?.config.id;
      return typeof id === 'string' ? { stubIndex: t.stubIndex, stubId: id, why: t.why } : { stubIndex: t.stubIndex, why: t.why };
    });
  }

  /**
   * The one place an exchange is answered: logs the failure that built `prepared` (if any), adds CORS
   * headers to what the respond stage answers (allowCORS), sends, counts (observers.onRequest), and
   * stamps the journal record with status and latency — except a debug report's (SPEC §4.12).
   */
  private answer(ex: Exchange, prepared: PreparedResponse, failure?: string): void {
    if (failure !== undefined) this.log.error(`imposter ${this.port}: ${failure}`);
    const response = this.allowCORS && ex.stage === 'respond' ? withCorsPreflight(prepared, ex.request.method, ex.request.headers) : prepared;
    this.write(ex.sink, response);
    if (this.observers.hasRequestObservers) this.observers.onRequest(this.port, ex.request.method, response.statusCode);
    if (ex.record && ex.stage !== 'debug') this.stamp(ex.record, response.statusCode, ex.started);
  }

  private stamp(record: JournalEntry<RecordedRequest>, status: number, started: number): void {
    record.value.status = status;
    record.value.latencyMs = Math.round(performance.now() - started);
    this.observers.onRecorded(this.port, record.index, record.value, this.flowIdOf(record.value));
  }

  /** Writes a response; a sink that throws (socket gone mid-write) has its connection reset instead. */
  private write(sink: ResponseSink, response: PreparedResponse): void {
    try {
      sink.send(response.statusCode, response.headers, response.body);
    } catch (err) {
      this.log.error(`imposter ${this.port}: cannot write response: ${(err as Error).message}`);
      sink.reset();
    }
  }
}

import type { MockRequest, WireRequest } from '../model/index.js';
import type { ImposterDefinition, StubDefinition } from '../validate/index.js';
import { cloneJson, errorText, hasFlowGate, isObject, newStateOf, plainRequest, requiredStateOf, scenarioNameOf } from '../model/index.js';
import { compileStubSet, explainStubs, type MatchContext, type StubSetMatcher } from '../match/index.js';
import {
  compileDefaultResponse,
  compileResponse,
  faultRandom,
  sharedFaultDraws,
  sharedFaultRandom,
  type SharedFaultDraws,
  stubsUseTcpFault,
  stubPredicateScripts,
  runOrFail,
  observeScript,
  type CompiledScript,
  newCycleSlot,
  ownerRecorder,
  type ImposterScope,
  type ProxyRecorder,
  type StubStore,
  type IsFields,
  type PreparedResponse,
  weakProxyCertificates,
} from '../respond/index.js';
import type { Listener, ResponseSink } from '../transport/index.js';
import { JournalRing, type JournalEntry } from '../journal/index.js';
import type { Logger } from '../log/index.js';
import type { ObserverSet } from './observer.js';
import type { SharedJournal } from './shared-journal.js';
import { createHash } from 'node:crypto';
import { StubAnalysis, imposterIgnoredKeys, stubIgnoredKeys, stubKeyAt, type IgnoredKey, type StubListEdit, type StubWarning } from '../analysis/index.js';
import { scriptTimeoutOf, type JsScriptHost } from '../script/js/index.js';
import {
  flowIdSourceFor,
  flowStateOf,
  headerFlowId,
  implicitFlowStore,
  localFlowStore,
  MemoryFlowStore,
  requestFlowId,
  scenarioKey,
  stubsNeedFlowStore,
  StubGates,
  type FlowIdSource,
  type FlowStore,
} from '../state/index.js';
import { scriptSettingsOf, type ScriptSettings, type SvcScriptRunner } from '../script/svc/index.js';
import { ProxyOwner, runFlowCall, ThreadCounter, type ObserverEvent, type ImposterPlan, type PlanSource, type ProxyRecording } from '../runtime/index.js';
import {
  compileLiveStub,
  debugOutcomeOf,
  debugReportOf,
  RequestPipeline,
  stubsUseJavaScript,
  stubsUseRhai,
  recordOf,
  type ImposterState,
  type LiveStub as ServedStub,
  type RecordedRequest,
  type ServedImposter,
  type ServeOptions,
} from '../serve/index.js';

/** A stub as the manager keeps it: what the pipeline serves, plus what the stub set needs to know of it. */
export interface LiveStub extends ServedStub {
  /** Derived once when the stub is made (an edit then costs the stubs it brings). */
  traits: StubTraits;
}

interface StubTraits {
  /** A response is a TCP fault (new connections get HTTP/1 only). */
  tcpFault: boolean;
  /** A script, stateOps or scenario field needs a flow store (docs/flow-state.md). */
  needsFlowStore: boolean;
  /** Its `_svc.script` predicates, compiled. */
  scripts: Array<{ predicate: object; script: CompiledScript }>;
  /** A space or scenario field (matching rule 5). */
  flowGate: boolean;
  /** Keys it has that svc ignores, paths relative to the stub. */
  ignoredKeys: readonly IgnoredKey[];
}

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
  /** mountebank 2.9.1 answers an unknown fault name with the default response (docs/faults.md: 500 `Unknown fault`). */
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
  /**
   * A fleet (docs/runtime.md): the journal, numberOfRequests and multi-response cycles are shared through
   * it; this imposter's ring mirrors the shared journal.
   */
  journal?: SharedJournal;
  /** A fleet: where proxy recordings go instead of straight into the stubs (fleetRecorder). */
  recorder?: (stubs: StubStore) => ProxyRecorder;
}

const NONE: readonly never[] = Object.freeze([]);

/** What an edit that made a stub list from `from` by one splice vouches: its first `kept` and last `tailKept` stubs are `from`'s, in place. */
export interface StubSplice extends StubListEdit {
  from: readonly LiveStub[];
}

/**
 * How many leading and trailing stubs of `next` are `previous`'s, in place, compared in the arrays alone:
 * all of `previous` kept (an append), else the longest prefix and the longest suffix after it.
 */
function keptAround(previous: readonly LiveStub[], next: readonly LiveStub[]): StubListEdit {
  const shorter = Math.min(previous.length, next.length);
  let kept = 0;
  while (kept < shorter && previous[kept] === next[kept]) kept++;
  if (kept === previous.length) return { kept, tailKept: 0 };
  let tailKept = 0;
  while (tailKept < shorter - kept && previous[previous.length - 1 - tailKept] === next[next.length - 1 - tailKept]) tailKept++;
  return { kept, tailKept };
}

function countScripted(stubs: readonly LiveStub[], from: number, to: number): number {
  let count = 0;
  for (let index = from; index < to; index++) if (stubs[index]!.traits.scripts.length > 0) count++;
  return count;
}

/** The shared empty list for an empty one: most stubs have no scripts and no ignored keys. */
function orShared<T>(list: T[]): T[] {
  return list.length === 0 ? (NONE as unknown as T[]) : list;
}

/**
 * One running imposter: its config, stubs, journal, counters, flow store and listener (the state a
 * request reaches), compiled for serving. The request path itself is the RequestPipeline (serve/),
 * which runs here over this state and on per-core engine threads over their view of it.
 */
export class Imposter implements ServedImposter, ImposterState, PlanSource {
  readonly port: number;
  readonly protocol: string;
  /** Everything given at creation except stubs (read-back and replayable output). */
  readonly config: Record<string, unknown>;
  private isEnabled = true;
  /** numberOfRequests: a field on one loop, shared memory under per-core (`sharedCount`). */
  private localCount = 0;
  private readonly sharedCount: ThreadCounter | undefined;
  /** Per-core: the fault draw position every thread takes from (the seeded stream in arrival order). */
  private readonly sharedDraws: SharedFaultDraws | undefined;
  /** Per-core: tells the runtime to publish a new plan (stubs or enabled changed). */
  private planChanged: (() => void) | undefined;
  /** Per-core: brings in what engine threads recorded (their records reach the journal through main). */
  private drainThreads: (() => void) | undefined;
  private readonly ring = new JournalRing<RecordedRequest>();
  listener: Listener | undefined;
  /** https only: the server's TLS settings as mountebank reports them (imposter-json.ts tlsMetadata). */
  tls: Record<string, unknown> | undefined;
  /** Some stub answers with a TCP fault: new connections get HTTP/1 only (docs/cli.md rule 3). */
  usesTcpFault = false;
  /** Stub analysis (docs/metrics-and-events.md), recomputed whenever the stub list changes. */
  warnings: readonly StubWarning[] = [];
  /** Keeps what it learnt of the stubs, so a stub appended is analysed alone. */
  private readonly analysis = new StubAnalysis();
  /** The imposter's own ignored keys (its config does not change). */
  private readonly ignoredKeys: readonly IgnoredKey[];
  private stubList: LiveStub[] = [];
  /** Each stub's config, in order (what the matcher and the analysis read). */
  private configList: Array<Record<string, unknown>> = [];
  /** `config_key_ignored` warnings of the stubs, in order. */
  private stubIgnored: StubWarning[] = [];
  /** Some stub has a space or scenario field. */
  private flowGated = false;
  /** How many stubs have `_svc.script` predicates (their rule ids may name their index). */
  private scriptedStubs = 0;
  /** Responses a proxy recording appended to live stubs so far: their kept reply text is stale (stub-text.ts). */
  responsesAdded = 0;
  /** Counts stub list changes; `stubsKept` leading stubs of the list before the last one are in the list after it, unchanged. */
  stubsVersion = 0;
  stubsKept = 0;
  /** Set by `adopt`, from the constructor on. */
  matcher!: StubSetMatcher;
  /** Matching rule 5 (spaces, scenario states); undefined when no stub has those fields. */
  gates: StubGates | undefined;
  private readonly defaults: IsFields | undefined;
  readonly defaultPrepared: PreparedResponse;
  readonly options: ServeOptions;
  readonly log: Logger;
  private readonly observers: ObserverSet;
  private readonly persistRecorded: (() => void) | undefined;
  /** Weak proxy client certificates already logged, so each is warned about once. */
  private readonly weakTlsLogged = new Set<string>();
  /** What predicates may call while matching (inject); verify evaluates with the same context. */
  readonly matchContext: MatchContext;
  readonly scope: ImposterScope;
  /** docs/flow-state.md: where request flow ids come from, and the per-flow store scripts, scenarios and admin use. */
  private readonly flowIdSource: FlowIdSource;
  private store: FlowStore;
  /** `_svc.scriptEngine`, `_svc.scripts` and the `file:` base: what stub edits validate and compile scripts against. */
  readonly scriptSettings: ScriptSettings;
  /** `{"_svc": {"script": S}}` predicates of the current stubs, by predicate object (compiled when stubs change). */
  private predicateScripts!: WeakMap<object, { script: CompiledScript; ruleId: string }>;
  private readonly pipeline: RequestPipeline;
  private readonly shared: SharedJournal | undefined;
  /** Where proxy recordings go: straight into this imposter's stubs (the list as it is, pending recordings aside). */
  readonly proxyRecorder: ProxyRecorder;
  /**
   * Per-core, what engine threads posted that changes the stubs as read and main has not received (drained
   * before the stubs are read): [0] proxyAlways recordings, [2] `--debug` matches ([1]: ImposterPlan.recordings).
   */
  private readonly pendingRecordings: Int32Array | undefined;
  /** Per-core: each stub's key in plans (engine threads name the stub a recording belongs to by it), by its cycle. */
  private readonly stubKeys = new WeakMap<object, number>();
  private nextStubKey = 1;
  /** Per-core: applies engine threads' proxy recordings, made on first use. */
  private proxyOwner: ProxyOwner | undefined;
  /** The `_svc.script` runner (started on first use). */
  private readonly svcRunner: (() => SvcScriptRunner) | undefined;

  constructor(options: ImposterOptions) {
    const { definition, port, log, observers, scriptHost, svcRunner } = options;
    this.svcRunner = svcRunner;
    this.log = log;
    this.observers = observers;
    this.port = port;
    this.persistRecorded = options.persistRecorded;
    this.shared = options.journal;
    this.proxyRecorder = (options.recorder ?? ownerRecorder)(this.ownStubs());
    this.shared?.attach({
      ring: this.ring,
      notify: (index, record) => observers.onRecorded(port, index, record, this.flowIdOf(record)),
      listening: () => observers.wantsRecords(),
    });
    if (options.sharedState) {
      this.sharedCount = ThreadCounter.forThreads(options.threads ?? 1);
      this.sharedDraws = sharedFaultDraws();
      this.pendingRecordings = new Int32Array(new SharedArrayBuffer(12));
    }
    this.protocol = definition.protocol;
    this.config = { ...definition.config, port };
    this.ignoredKeys = imposterIgnoredKeys(this.config);
    this.options = {
      recordRequests: options.recordAll === true || definition.config.recordRequests === true,
      allowCORS: definition.config.allowCORS === true,
      debugMatches: options.debugMatches === true,
      logRequests: log.isEnabled('debug'),
      unknownFaultServesDefault: options.unknownFaultServesDefault === true,
    };
    this.defaults = isObject(definition.config.defaultResponse) ? (definition.config.defaultResponse as IsFields) : undefined;
    this.defaultPrepared = compileDefaultResponse(this.defaults);
    const scripts = { host: scriptHost, timeoutMs: scriptTimeoutOf(definition.config) };
    const random = this.sharedDraws ? sharedFaultRandom(this.sharedDraws) : faultRandom();
    this.scope = { port, defaults: this.defaults, observers, random, scripts };
    this.scriptSettings = definition.scripts ?? scriptSettingsOf(definition.config, { dir: process.cwd(), confined: true }).settings;
    if (svcRunner) {
      this.scope.svc = {
        settings: this.scriptSettings,
        scope: port,
        runner: svcRunner,
        store: () => this.store,
        flowIdOf: (request) => this.flowIdOf(request),
        observe: (ruleId, outcome, ms) => observeScript(observers, ruleId, outcome, ms),
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
    this.pipeline = new RequestPipeline(this, this);
    this.adopt(definition.stubs.map((stub) => this.liveStub(stub)));
  }

  get name(): unknown {
    return this.config.name;
  }

  get enabled(): boolean {
    return this.isEnabled;
  }

  set enabled(value: boolean) {
    this.isEnabled = value;
    this.planChanged?.();
  }

  get numberOfRequests(): number {
    if (this.shared) return this.shared.count;
    return this.sharedCount ? this.sharedCount.total() : this.localCount;
  }

  set numberOfRequests(value: number) {
    if (this.sharedCount) this.sharedCount.set(value);
    else this.localCount = value;
  }

  /** A fleet: brings the journal and numberOfRequests up to what every node recorded (before an admin read). */
  syncJournal(): Promise<void> {
    return this.shared?.sync() ?? Promise.resolve();
  }

  /**
   * Removes recorded requests (those `drop` selects, else all) and lowers numberOfRequests by as many
   * (all: to 0); in a fleet on every node. Returns how many were removed.
   */
  async clearRecords(drop?: (record: RecordedRequest) => boolean): Promise<number> {
    const shared = this.shared;
    if (shared) {
      await shared.sync();
      const indices = drop
        ? this.ring
            .all()
            .filter((e) => drop(e.value))
            .map((e) => e.index)
        : undefined;
      await shared.clear(indices);
      await shared.sync();
      return indices?.length ?? 0;
    }
    if (!drop) {
      const removed = this.journal.clear();
      this.numberOfRequests = 0;
      return removed;
    }
    const removed = this.journal.clear(drop);
    this.numberOfRequests = Math.max(0, this.numberOfRequests - removed);
    return removed;
  }

  /** The recorded requests, every engine thread's included (per-core: drained before any read). */
  get journal(): JournalRing<RecordedRequest> {
    this.drainThreads?.();
    return this.ring;
  }

  get stubs(): readonly LiveStub[] {
    // Per-core: a proxyAlways recording or a `--debug` match whose response a client has seen is in the list it reads.
    const pending = this.pendingRecordings;
    if (pending && (Atomics.load(pending, 0) !== 0 || Atomics.load(pending, 2) !== 0)) this.drainThreads?.();
    return this.stubList;
  }

  /** The stub list as proxy recordings find it: as it is (draining threads from here would apply later recordings first). */
  private ownStubs(): StubStore {
    const imposter = this;
    return {
      get stubs() {
        return imposter.stubList;
      },
      insertStub: (index, config) => imposter.insertStub(index, config),
      addStubResponse: (index, response) => imposter.addStubResponse(index, response),
    };
  }

  /** The imposter's flow store (docs/flow-state.md); read-only from outside, it may turn in-memory when stubs change. */
  get flowStore(): FlowStore {
    return this.store;
  }

  /** The flow id of a request (docs/flow-state.md `flowIdSource`): the configured header, falling back to the port. */
  flowIdOf(request: { headers: Record<string, string | string[]> }): string {
    // A port-sourced id never reads `headers` (a lazy request builds its header map on first read).
    if (this.flowIdSource.kind === 'port') return String(this.port);
    return requestFlowId(this.flowIdSource, this.port, request.headers);
  }

  /**
   * The flow id the polling filters (savedRequests `match=flow_id=`, verify `flowId`) give a recorded
   * request: as `flowIdOf`, except that a header-sourced imposter's request without the header has none
   * (docs/metrics-and-events.md: falling back to the port is the event stream's alone).
   */
  recordedFlowId(request: { headers: Record<string, string | string[]> }): string | undefined {
    if (this.flowIdSource.kind === 'port') return String(this.port);
    return headerFlowId(this.flowIdSource.name, request.headers);
  }

  /**
   * docs/flow-state.md rule 2 when stubs change: a noop-store imposter that gains a script or scenario stub gets
   * the implicit in-memory store. A store never goes back to noop (its state outlives stub edits).
   */
  private upgradeFlowStore(added: readonly LiveStub[]): void {
    if (this.store.backend !== 'noop' || flowStateOf(this.config) !== undefined) return;
    if (!added.some((s) => s.traits.needsFlowStore)) return;
    this.store = implicitFlowStore(this.log, this.port, this.observers);
  }

  liveStub(stub: StubDefinition): LiveStub {
    const live = compileLiveStub(
      stub.config,
      this.defaults,
      { settings: this.scriptSettings, stub: stub.config },
      this.sharedCount ? newCycleSlot() : undefined,
    );
    const traits = {
      tcpFault: stubsUseTcpFault([stub.config]),
      needsFlowStore: stubsNeedFlowStore([stub.config]),
      scripts: orShared(stubPredicateScripts(stub.config, this.scriptSettings)),
      flowGate: hasFlowGate(stub.config),
      ignoredKeys: orShared(stubIgnoredKeys(stub.config)),
    };
    const shared = this.shared;
    if (shared && !live.cycle.single) {
      // Counted fleet-wide under a key of the stub's content: an edit starts its cycle over, as on one node.
      const key = createHash('sha1').update(JSON.stringify(stub.config)).digest('base64');
      live.sharedPosition = () => shared.position(key);
    }
    return { ...live, traits, ...(stub.given ? { given: stub.given } : {}) };
  }

  /**
   * Swaps the stub list and recompiles the matcher once (predicates are never compiled per request).
   * An edit that made `stubs` from the current list by one splice says which stubs it kept (`edit`);
   * otherwise they are found by comparing the two lists, a pass over every stub.
   */
  setStubs(stubs: LiveStub[], edit?: StubSplice): void {
    const previous = this.stubList;
    // Trusted only for the list it was made from: a proxy recording may have changed the list since.
    const { kept, tailKept } = edit?.from === previous ? edit : keptAround(previous, stubs);
    if (previous.length > 0 && kept === previous.length) {
      this.upgradeFlowStore(stubs.slice(kept));
      this.adopt(stubs, kept);
      return;
    }
    // An edit inside the list (PUT or DELETE of one stub, POST at an index): the stubs before and after it are kept.
    this.upgradeFlowStore(tailKept === 0 ? stubs.slice(kept) : stubs.slice(kept, stubs.length - tailKept));
    if (tailKept === 0) this.adopt(stubs, 0);
    else this.adoptSplice(stubs, kept, tailKept);
  }

  /**
   * Everything derived from the stub list, once per change: matcher, script predicates, gates, warnings,
   * the tcp-fault flag. Each stub's own part was derived when it was made (LiveStub traits, and the
   * matcher's and analysis' per-config caches), so this pass only gathers; when the first `kept` stubs
   * are the previous list's (an append), only the stubs after them are read: at 10,000 stubs, reading
   * each stub object is a cache miss apiece, most of an edit's budget.
   */
  private adopt(stubs: LiveStub[], kept = 0): void {
    const configs = kept === 0 ? [] : this.configList.slice(0, kept);
    const scripts = kept === 0 ? new WeakMap<object, { script: CompiledScript; ruleId: string }>() : this.predicateScripts;
    const ignored = kept === 0 ? [] : this.stubIgnored.slice();
    let tcpFault = kept === 0 ? false : this.usesTcpFault;
    let flowGate = kept === 0 ? false : this.flowGated;
    for (let index = kept; index < stubs.length; index++) {
      const { config, traits } = stubs[index]!;
      configs.push(config);
      tcpFault ||= traits.tcpFault;
      flowGate ||= traits.flowGate;
      for (const key of traits.ignoredKeys) ignored.push({ warningType: 'config_key_ignored', ...stubKeyAt(key, index) });
      this.noteScripts(scripts, stubs[index]!, index);
    }
    this.matcher = compileStubSet(configs, { previous: this.matcher, unchanged: kept });
    this.adopted(stubs, kept, 0, { configs, scripts, ignored, tcpFault, flowGate });
  }

  /**
   * `adopt` for an edit inside the list: the first `kept` and last `tailKept` stubs are the previous
   * list's. What depends on a stub's index (script rule ids, ignored-key paths) is redone for the kept
   * stubs after the edit only where they have some; the matcher's index and the analysis are spliced.
   */
  private adoptSplice(stubs: LiveStub[], kept: number, tailKept: number): void {
    const previous = this.stubList;
    const end = stubs.length - tailKept;
    const removedEnd = previous.length - tailKept;
    const delta = end - removedEnd;
    const removed = previous.slice(kept, removedEnd);
    const added = stubs.slice(kept, end);
    const configs = [...this.configList.slice(0, kept), ...added.map((stub) => stub.config), ...this.configList.slice(removedEnd)];
    const scripts = this.predicateScripts;
    for (let index = kept; index < end; index++) this.noteScripts(scripts, stubs[index]!, index);
    if (delta !== 0 && this.scriptedStubs > 0) {
      for (let index = end; index < stubs.length; index++) this.noteScripts(scripts, stubs[index]!, index);
    }
    const ignored: StubWarning[] = [];
    const tailIgnored = new Set<number>();
    for (const warning of this.stubIgnored) {
      const at = warning.stubIndex!;
      if (at < kept) ignored.push(warning);
      else if (at >= removedEnd) tailIgnored.add(at + delta);
    }
    for (let index = kept; index < end; index++)
      for (const key of stubs[index]!.traits.ignoredKeys) ignored.push({ warningType: 'config_key_ignored', ...stubKeyAt(key, index) });
    for (const index of tailIgnored)
      for (const key of stubs[index]!.traits.ignoredKeys) ignored.push({ warningType: 'config_key_ignored', ...stubKeyAt(key, index) });
    // A flag a removed stub may have raised is recounted over the whole list; else the added stubs only add to it.
    const recount = (flag: keyof Pick<StubTraits, 'tcpFault' | 'flowGate'>, now: boolean): boolean =>
      removed.some((stub) => stub.traits[flag]) ? stubs.some((stub) => stub.traits[flag]) : now || added.some((stub) => stub.traits[flag]);
    this.matcher = compileStubSet(configs, { previous: this.matcher, unchanged: kept, tailKept });
    this.adopted(stubs, kept, tailKept, {
      configs,
      scripts,
      ignored,
      tcpFault: recount('tcpFault', this.usesTcpFault),
      flowGate: recount('flowGate', this.flowGated),
    });
  }

  /** Records the stub's `_svc.script` predicates under its rule id (its id, else `port:index`). */
  private noteScripts(scripts: WeakMap<object, { script: CompiledScript; ruleId: string }>, stub: LiveStub, index: number): void {
    if (stub.traits.scripts.length === 0) return;
    const ruleId = typeof stub.config.id === 'string' ? stub.config.id : `${this.port}:${index}`;
    for (const { predicate, script } of stub.traits.scripts) scripts.set(predicate, { script, ruleId });
  }

  /** The last part of `adopt`: the new list and what was gathered of it take effect. */
  private adopted(
    stubs: LiveStub[],
    kept: number,
    tailKept: number,
    gathered: {
      configs: Array<Record<string, unknown>>;
      scripts: WeakMap<object, { script: CompiledScript; ruleId: string }>;
      ignored: StubWarning[];
      tcpFault: boolean;
      flowGate: boolean;
    },
  ): void {
    const { configs, scripts, ignored, tcpFault, flowGate } = gathered;
    this.predicateScripts = scripts;
    this.gates = flowGate ? StubGates.compile(configs) : undefined;
    this.flowGated = flowGate;
    const previous = this.stubList;
    this.scriptedStubs =
      kept === 0 && tailKept === 0
        ? stubs.filter((stub) => stub.traits.scripts.length > 0).length
        : this.scriptedStubs + countScripted(stubs, kept, stubs.length - tailKept) - countScripted(previous, kept, previous.length - tailKept);
    this.stubList = stubs;
    this.stubsVersion += 1;
    this.stubsKept = kept;
    this.configList = configs;
    this.stubIgnored = ignored;
    this.analyse(configs, kept, tailKept);
    this.usesTcpFault = tcpFault;
    this.planChanged?.();
  }

  /** Proxy recording (docs/responses.md): a new stub at `index`, added while serving. */
  insertStub(index: number, config: Record<string, unknown>): void {
    const current = this.stubList;
    const next = [...current];
    next.splice(index, 0, this.liveStub({ config }));
    const inside = Number.isInteger(index) && index >= 0 && index <= current.length;
    this.setStubs(next, inside ? { from: current, kept: index, tailKept: current.length - index } : undefined);
    this.persistRecorded?.();
    this.observers.onLifecycle('stubsChanged', this.port);
  }

  /** Proxy recording (proxyAlways): a response appended to the stub at `index`; its cycle continues. */
  addStubResponse(index: number, response: Record<string, unknown>): void {
    const stub = this.stubList[index];
    (stub.config.responses as unknown[]).push(response);
    this.responsesAdded += 1;
    if (!stub.traits.tcpFault && stubsUseTcpFault([{ responses: [response] }])) {
      stub.traits.tcpFault = true;
      this.usesTcpFault = true;
    }
    stub.cycle.push(compileResponse(response, this.defaults, { settings: this.scriptSettings, stub: stub.config }), response);
    this.planChanged?.();
    this.persistRecorded?.();
    this.observers.onLifecycle('stubsChanged', this.port);
  }

  /** Logs only warnings the last analysis did not have, so stub-by-stub edits do not repeat the list; `kept` (and `tailKept`) stubs were analysed before. */
  private analyse(configs: ReadonlyArray<Record<string, unknown>>, kept: number, tailKept = 0): void {
    const known = new Set(this.warnings.map((w) => w.message));
    const ignored = this.ignoredKeys.map((key): StubWarning => ({ warningType: 'config_key_ignored', ...key }));
    this.warnings = [...ignored, ...this.stubIgnored, ...this.analysis.update(configs, tailKept === 0 ? kept : { kept, tailKept })];
    for (const w of this.warnings) {
      if (known.has(w.message)) continue;
      // A catch-all stub is the usual last stub, not a mistake: warn-level noise for every imposter.
      if (w.warningType === 'catch_all') this.log.debug(`imposter ${this.port}: ${w.warningType}: ${w.message}`);
      else this.log.warn(`imposter ${this.port}: ${w.warningType}: ${w.message}`);
    }
    for (const line of weakProxyCertificates(tailKept === 0 ? configs : configs.slice(0, configs.length - tailKept), kept)) {
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

  /** Each stub's config with the stub as given, where it held null fields (read back by `--compat mountebank`). */
  stubsWithGiven(): Array<{ config: Record<string, unknown>; given?: Record<string, unknown> }> {
    return this.stubList.map((s) => ({ config: cloneJson(s.config), ...(s.given ? { given: s.given } : {}) }));
  }

  stubConfigs(): Array<Record<string, unknown>> {
    return this.stubList.map((s) => cloneJson(s.config));
  }

  /** A `_svc.script` predicate (docs/scripts.md `matches(ctx)`); a failed run ends the request (ScriptFailure). */
  private async runPredicateScript(predicate: Record<string, unknown>, request: MockRequest): Promise<boolean> {
    const found = this.predicateScripts.get(predicate);
    if (!found || !this.scope.svc) throw new Error('_svc.script predicate is not available');
    return (await runOrFail(found.script, this.scope.svc, { request, ruleId: found.ruleId })).value === true;
  }

  /**
   * The debug report (docs/metrics-and-events.md) of a request the admin plane describes, with `candidates`: every stub's
   * failing predicates and their expected and actual values, closest first (for a match, only the stubs
   * before the one that matched). Matched like a real request (spaces, scenario states, scripts) but
   * nothing is counted, recorded, observed or moved.
   */
  async explain(request: MockRequest): Promise<Record<string, unknown>> {
    if (!this.enabled) return debugReportOf(this, request, { unmatched: 'imposter is disabled' }, []);
    const gated = await this.gates?.forRequest(this.matchContext, this.flowIdOf(request), this.store);
    const ctx = gated?.context ?? this.matchContext;
    const index = await this.matcher.firstMatch(request, ctx, 0);
    const configs = this.stubList.map((stub) => stub.config);
    const candidates = await explainStubs(index >= 0 ? configs.slice(0, index) : configs, request, ctx);
    return debugReportOf(this, request, debugOutcomeOf(this, index), candidates);
  }

  /**
   * Entry point for every request reaching this imposter (its port, the gateway, the front door, the
   * per-core runtime): the request pipeline over this imposter's state.
   */
  handle(wire: WireRequest, sink: ResponseSink): void {
    this.pipeline.handle(wire, sink);
  }

  // ---- ImposterState: the owner's side ----

  countRequest(): void {
    if (this.shared) this.shared.counted();
    else if (this.sharedCount) this.sharedCount.add(0);
    else this.localCount += 1;
  }

  openRecord(request: MockRequest): JournalEntry<RecordedRequest> {
    // A fleet's record gets its index when Redis stores it (closeRecord); the ring mirrors the stream.
    if (this.shared) return { index: 0, value: recordOf(request) };
    return this.ring.append(recordOf(request));
  }

  closeRecord(record: JournalEntry<RecordedRequest>, notify: boolean): void | Promise<void> {
    if (this.shared) {
      return this.shared.append(record.value).then((index) => {
        if (index === undefined) return;
        record.index = index;
        if (notify) this.observers.onRecorded(this.port, index, record.value, this.flowIdOf(record.value));
      });
    }
    if (notify) this.observers.onRecorded(this.port, record.index, record.value, this.flowIdOf(record.value));
  }

  matched(stub: LiveStub, _index: number, entry: Record<string, unknown>): void {
    (stub.matches ??= []).push(entry);
  }

  answered(method: string, status: number, times = 1): void {
    if (!this.observers.hasRequestObservers) return;
    for (let i = 0; i < times; i += 1) this.observers.onRequest(this.port, method, status);
  }

  get proxyObserver(): ObserverSet {
    return this.observers;
  }

  // ---- PlanSource (per-core runtime) ----

  /** The whole imposter for engine threads to compile and serve from; undefined when only main can serve it (a fleet's, or outside per-core). */
  plan(): ImposterPlan | undefined {
    // Every store is reachable from engine threads: the in-memory (and noop) one is this thread's, reached by
    // message; a redis one each thread opens itself from the config.
    // A fleet's journal and cycles are reached from this thread only.
    if (this.shared || !this.sharedCount || !this.sharedDraws) return undefined;
    return {
      port: this.port,
      protocol: this.protocol,
      config: this.config,
      enabled: this.enabled,
      options: this.options,
      stubs: this.stubList.map((stub) => ({ config: stub.config, cycle: stub.cycle.slot!, key: this.stubKey(stub) })),
      count: this.sharedCount.buffer,
      faultDraws: this.sharedDraws,
      recordings: this.pendingRecordings!.buffer as SharedArrayBuffer,
      scripts: this.scriptsPlan(),
      scenarios: this.scenariosPlan(),
    };
  }

  /**
   * The in-memory store's scenario states engine threads gate and move in shared memory: the port's flow
   * (every flow of a port-sourced imposter, the fallback of a header-sourced one) for every scenario the
   * stubs name. Other flows' scenarios are reached by message.
   */
  private scenariosPlan(): ImposterPlan['scenarios'] {
    if (!(this.store instanceof MemoryFlowStore) || !this.gates) return undefined;
    const names = new Set<string>();
    const states = new Set<string>();
    for (const stub of this.stubList) {
      const name = scenarioNameOf(stub.config);
      if (name === undefined) continue;
      names.add(name);
      for (const state of [requiredStateOf(stub.config), newStateOf(stub.config)]) if (state !== undefined) states.add(state);
    }
    if (names.size === 0) return undefined;
    // A state interned later (admin, scripts) reaches engine threads in a new plan, posted before that write returns.
    return this.store.shareScenarios([String(this.port)], [...names].map(scenarioKey), states, () => this.planChanged?.());
  }

  collectShared(): void {
    if (this.store instanceof MemoryFlowStore) this.store.collectShared();
  }

  /**
   * What engine threads need to run this imposter's scripts themselves: the settings, the JavaScript
   * sandbox worker that holds its `state` (placed now), and the `_svc.script` workers started (their links).
   */
  private scriptsPlan(): ImposterPlan['scripts'] {
    const predicateScripts = (stub: ServedStub) => (stub as LiveStub).traits.scripts;
    const js = stubsUseJavaScript(this.stubList, predicateScripts);
    const rhai = stubsUseRhai(this.stubList, predicateScripts);
    if (!js && !rhai) return undefined;
    // Only what the stubs use is started (a worker's cold start costs seconds of CPU on a loaded machine).
    return {
      settings: this.scriptSettings,
      ...(js ? { jsWorker: this.scope.scripts.host().place(this.port) } : {}),
      // Starting the runner starts its workers, and with them the engine threads' links to them.
      ...(rhai && this.svcRunner ? { share: this.svcRunner().shareOf(this.port) } : {}),
    };
  }

  private stubKey(stub: LiveStub): number {
    let key = this.stubKeys.get(stub.cycle);
    if (key === undefined) {
      key = this.nextStubKey++;
      this.stubKeys.set(stub.cycle, key);
    }
    return key;
  }

  /** A proxy recording step an engine thread asks of this imposter (the stubs' owner). */
  proxyCall(op: string, args: unknown[], slot: number): Promise<unknown> {
    return this.owner().call(op, args, slot);
  }

  private owner(): ProxyOwner {
    this.proxyOwner ??= new ProxyOwner(
      this.proxyRecorder,
      this.ownStubs(),
      (at) => this.stubList.find((stub) => this.stubKeys.get(stub.cycle) === at.stub)?.cycle.responses[at.response],
      (err) => this.log.error(`imposter ${this.port}: a proxyAlways recording made on an engine thread was not stored: ${errorText(err)}`),
    );
    return this.proxyOwner;
  }

  /** A `--debug` match an engine thread posted for the stub with `key` (gone with an edit meanwhile: as on one loop, nobody reads it). */
  threadMatched(key: number, entry: Record<string, unknown>): void {
    Atomics.sub(this.pendingRecordings!, 2, 1);
    const stub = this.stubList.find((s) => this.stubKeys.get(s.cycle) === key);
    if (stub) this.matched(stub, -1, entry);
  }

  proxyRecorded(recording: ProxyRecording): void {
    Atomics.sub(this.pendingRecordings!, 0, 1);
    this.owner().recorded(recording);
  }

  threadLost(slot: number): void {
    this.proxyOwner?.threadLost(slot);
  }

  onPlanChange(changed: () => void): void {
    this.planChanged = changed;
  }

  onRecordsPending(drain: () => void): void {
    this.drainThreads = drain;
  }

  /** A record an engine thread finished, in the order main received it: appended now (its index). */
  recorded(value: RecordedRequest, notify: boolean): void {
    this.closeRecord(this.ring.append(value), notify);
  }

  /** A flow store operation an engine thread asks of this imposter's store (its one owner). */
  flowCall(op: string, args: unknown[]): Promise<unknown> {
    return runFlowCall(this.store, op, args);
  }

  /** A metric an engine thread reported. */
  observed(event: ObserverEvent): void {
    const o = this.observers;
    if (event.name === 'onFault') o.onFault(event.args[0], event.args[1], event.args[2]);
    else if (event.name === 'onLatencyInjected') o.onLatencyInjected(event.args[0], event.args[1]);
    else if (event.name === 'onErrorStatus') o.onErrorStatus(event.args[0], event.args[1]);
    else if (event.name === 'onUpstream') o.onUpstream(event.args[0], event.args[1], event.args[2]);
    else if (event.name === 'onProxy') o.onProxy(event.args[0], event.args[1], event.args[2]);
    else if (event.name === 'onFlowStateOp') o.onFlowStateOp(event.args[0], event.args[1]);
    else if (event.name === 'onScript') o.onScript(event.args[0], event.args[1], event.args[2]);
    else o.onScriptError(event.args[0], event.args[1]);
  }
}

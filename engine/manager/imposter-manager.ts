import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { constants as osConstants } from 'node:os';
import {
  errors,
  isObject,
  isSvcError,
  SvcError,
  predicatesAreScripted,
  injectionMessages,
  errorEntries,
  type ErrorEntry,
  type ListenFailure,
} from '../model/index.js';
import { parseImposter, parseStubs, type ImposterDefinition, type StubDefinition } from '../validate/index.js';
import {
  BodyBudget,
  checkBindable,
  createListener,
  defaultKeyPair,
  DEFAULT_BUFFERED_BODY_BYTES,
  isHttp2Disabled,
  weakCertificateReasons,
  type ConnectionTimeouts,
  type Listener,
  type ListenerOptions,
  type RequestHandler,
} from '../transport/index.js';
import { isRecordedProxyResponse } from '../respond/index.js';
import { canonicalJson } from '../analysis/index.js';
import { silentLogger, type Logger } from '../log/index.js';
import { Imposter, type LiveStub } from './imposter.js';
import { PortAllocator } from './port-allocator.js';
import { renderDeleted, renderImposter, renderImposterText, renderSummary, stubLinks, tlsMetadata, type Compat, type RenderOptions } from './imposter-json.js';
import { clausesMatch, parseClauses, type RecordedRequest } from './recorded-request.js';
import { verifyRequests, type VerifyResult } from './verify.js';
import { clearFlowState, deleteFlowState, getFlowState, listFlowState, putFlowState } from './flow-state-api.js';
import { flowStateOf, NoopFlowStore, openRemoteFlowStore, type FlowStore } from '../state/index.js';
import { ObserverSet, type EngineObserver } from './observer.js';
import { PerCoreRuntime, runtimeFromEnv, type PlanSource, type RuntimeSettings } from '../runtime/index.js';
import { createJsScriptHost, type JsScriptHost } from '../script/js/index.js';
import { SvcScriptRunner, type ScriptBase } from '../script/svc/index.js';
import { spaceInsertIndex, spaceStub } from '../state/index.js';
import {
  deleteSpace,
  flowIdOrDefault,
  listScenarios,
  putScenarioState,
  resetScenarios,
  spaceDetail,
  spaceRecorded as recordedInSpace,
  spaceStubs,
  type ScenarioList,
  type SpaceDetail,
  type SpaceStubs,
} from './flow-scopes.js';

export interface ManagerOptions {
  allowInjection: boolean;
  /** `--scripts-dir`: where `file:` scripts of admin-created imposters resolve (default: the working directory). */
  scriptsDir?: string;
  /** Bind address for imposters without their own `host` (mountebank binds all interfaces). */
  host?: string;
  maxBodyBytes?: number;
  /** Request-body bytes all imposter ports (and the front door) buffer at once; 256 MiB when absent. */
  maxBufferedBodyBytes?: number;
  /** Imposter (and front door) connection timeouts; mountebank's node:http defaults when absent. */
  timeouts?: ConnectionTimeouts;
  /** mountebank's `--mock` flag: every imposter records requests, whatever its recordRequests says. */
  recordAllRequests?: boolean;
  /** mountebank's `--debug` flag: each stub keeps the requests it matched, read back as `matches`. */
  debugMatches?: boolean;
  /**
   * `--compat mountebank`: mountebank 2.9.1's observable admin behaviour (its imposter JSON, no generated
   * stub ids, `protocol` required, 200 `{}` for deleting a missing imposter, unknown faults ignored).
   */
  compat?: Compat;
  /** `--localOnly` / `--ipWhitelist` (transport connectionFilter); absent serves every peer. */
  allowConnection?: (remoteAddress: string | undefined) => boolean;
  log: Logger;
  /**
   * `--runtime` / `--workers`: with per-core, imposter listeners are accepted by `workers` engine threads
   * (the main thread included). Absent: SVC_RUNTIME / SVC_WORKERS decide.
   */
  runtime?: RuntimeSettings;
  /** Where imposters are kept durably (the data directory); absent keeps them in memory only. */
  persistence?: PersistenceHooks;
  /**
   * `--fleet`: the Redis-backed set shared by several svc processes (engine/fleet). Admin writes are
   * admitted by it and shared through it once applied here; call `joinFleet()` before serving.
   */
  fleet?: ConfigReplica;
}

/** A durable copy of the imposter set (the data directory) that every change must reach before it answers. */
export interface PersistenceHooks {
  /**
   * Runs before an imposter is deleted (not when it is replaced); throwing keeps the imposter, and the
   * error (an SvcError 503 from the data directory) is what the caller sees.
   */
  beforeDelete(port: number): void;
  /**
   * Keeps `document()` (the imposter's replayable JSON) as the imposter on `port`, before the call
   * answers; throwing refuses the change (it is not applied, or undone) and the error (an SvcError 503)
   * is what the caller sees.
   */
  persist(port: number, document: () => Record<string, unknown>): void;
}

/**
 * What the manager needs of a fleet (engine/fleet implements it; defined here so the manager never
 * imports it). Writes the fleet itself applies (`replicate`) pass neither gate nor commit.
 */
export interface ConfigReplica {
  /** Before an admin write runs: throws (a 503) when the write could not be shared now, so nothing changes. */
  admit(): void;
  /**
   * After an admin write: the ports whose config it changed ('all': the whole set, e.g. DELETE /imposters).
   * `apply` (as in `replicate`) lets a fleet that cannot share the write put those ports back before it throws.
   */
  committed(ports: readonly number[] | 'all', apply: ApplyShared): Promise<void>;
  /** Loads the shared set into `manager` and follows its changes from then on. */
  attach(manager: ImposterManager): Promise<void>;
  /** `GET /fleet`: the nodes and the versions they run. */
  status(): Promise<object>;
  close(): Promise<void>;
}

/** Sets one port to a shared config, or deletes it (undefined). */
export type ApplyShared = (port: number, shared: SharedImposter | undefined) => Promise<void>;

/** One imposter as a fleet shares it: its replayable config and whether it is enabled. */
export interface SharedImposter {
  config: Record<string, unknown>;
  enabled: boolean;
}

export type StubRef = { index: number } | { id: string };

/** What every call may say about its caller; each surface passes these instead of positional flags. */
export interface CallOptions {
  /**
   * The caller is not injection-gated (the C functions, svc_serve_admin's inline config): scripted
   * configs are admitted whatever the manager's `allowInjection`.
   */
  trusted?: boolean;
}

/** Creating imposters or editing stubs: `generateIds` (default true) gives id-less stubs an id (docs/imposters.md). */
export interface StubEditOptions extends CallOptions {
  generateIds?: boolean;
}

export type CreateOptions = StubEditOptions;

export interface ParseOptions extends StubEditOptions {
  /** Where `file:` scripts resolve; by default under `--scripts-dir` (admin-created imposters). */
  scriptBase?: ScriptBase;
}

/** POST /imposters/{port}/stubs: `index` (validated here, it arrives as raw JSON) places the stub; absent appends. */
export interface AddStubOptions extends StubEditOptions {
  index?: unknown;
}

export interface ApplyOptions extends StubEditOptions {
  /** Per body, where its `file:` scripts resolve (config files and data directories). */
  scriptBases?: ReadonlyArray<ScriptBase | undefined>;
  /** Startup and reload apply what they can and report the rest (a persisted imposter whose port is taken is listed, the others start). */
  partial?: boolean;
  /** Startup and reload: the set comes from the durable sources themselves, so nothing is written back. */
  fromSources?: boolean;
}

export type VerifyOptions = CallOptions;

/** `baseUrl`: the base of `_links`, as in RenderOptions; absent (the C ABI) renders none. */
export interface LinkOptions {
  baseUrl?: string;
}

export interface ClearRequestsOptions {
  /** Only the recorded requests matching every clause (docs/recording-and-verify.md); absent clears them all. */
  match?: string[];
}

export interface ApplyReport {
  created: number[];
  replaced: number[];
  stubPatched: number[];
  deleted: number[];
  unchanged: number[];
  /** `restored`: a replacement failed and the imposter it replaced runs again as it was (journal and flow state not kept). */
  failed: Array<{ port: number; error: string; restored?: boolean }>;
}

export interface SavedRequestsQuery {
  since?: number;
  match?: string[];
}

export interface SavedRequestsPage {
  requests: RecordedRequest[];
  nextIndex: number;
  truncated: boolean;
}

const DEFAULT_MAX_BODY = 64 * 1024 * 1024;

/**
 * An imposter header as reconcile compares it: `recordRequests: false` is the default, so it equals
 * absence (replayable JSON spells it out); likewise `tls`, the https settings in effect, so a saved
 * config that spells out the default pair compares equal to one that left it out.
 */
function comparableHeader(config: Record<string, unknown>, tls: Record<string, unknown> | undefined): Record<string, unknown> {
  return { ...config, ...tls, recordRequests: config.recordRequests === true };
}

/** The https settings an imposter config yields (undefined for http); the default pair only when needed. */
async function tlsOf(definition: ImposterDefinition): Promise<Record<string, unknown> | undefined> {
  if (definition.protocol !== 'https') return undefined;
  const { key, cert } = definition.config;
  const fallback = typeof key === 'string' && typeof cert === 'string' ? undefined : await defaultKeyPair();
  return tlsMetadata(definition.config, fallback);
}

/** The definition a running imposter was built from (to start it again when its replacement fails). */
function definitionOf(imposter: Imposter): ImposterDefinition {
  return {
    port: imposter.port,
    protocol: imposter.protocol as ImposterDefinition['protocol'],
    config: imposter.config,
    stubs: imposter.stubs.map((live) => ({ config: live.config })),
    scripts: imposter.scriptSettings,
  };
}

function isPemList(value: unknown): value is string | string[] {
  return typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
}

/** Configs keyed by content (canonical JSON), each key's entries in list order: equal-config lookups in O(1). */
class ConfigPool<T> {
  private readonly byKey = new Map<string, { entries: T[]; next: number }>();

  constructor(entries: readonly T[], key: (entry: T) => string) {
    for (const entry of entries) {
      const k = key(entry);
      const bucket = this.byKey.get(k);
      if (bucket) bucket.entries.push(entry);
      else this.byKey.set(k, { entries: [entry], next: 0 });
    }
  }

  /** Removes and returns the earliest entry under `key` that `usable` accepts; unusable ones met on the way are dropped. */
  take(key: string, usable: (entry: T) => boolean = () => true): T | undefined {
    const bucket = this.byKey.get(key);
    while (bucket && bucket.next < bucket.entries.length) {
      const entry = bucket.entries[bucket.next++];
      if (usable(entry)) return entry;
    }
    return undefined;
  }
}

function withoutId(config: Record<string, unknown>): string {
  const { id: _id, ...rest } = config;
  return canonicalJson(rest);
}

/**
 * Ids for stubs that arrive without one: the id of an identical running stub, so re-sending an unchanged
 * configuration leaves it unchanged (recorded requests and response cycles kept); otherwise a fresh one
 * when ids are generated.
 */
function withStubIds(definition: ImposterDefinition, current: Imposter | undefined, generateIds: boolean): ImposterDefinition {
  const pool = new ConfigPool(current ? current.stubs.map((live) => live.config) : [], withoutId);
  const taken = new Set<unknown>(definition.stubs.map((stub) => stub.config.id).filter((id) => id !== undefined));
  const stubs = definition.stubs.map((stub): StubDefinition => {
    if (stub.config.id !== undefined) return stub;
    // A taken id stays taken, so a pool entry passed over for it is never wanted later.
    const match = pool.take(withoutId(stub.config), (config) => !taken.has(config.id));
    if (match) {
      if (match.id === undefined) return stub;
      taken.add(match.id);
      return { ...stub, config: { id: match.id, ...stub.config } };
    }
    return generateIds ? { ...stub, config: { id: randomUUID(), ...stub.config } } : stub;
  });
  return { ...definition, stubs };
}

/**
 * The one API every surface calls (admin HTTP, C ABI host, embedding): same calls, same checks, same
 * JSON. Every change to the imposter set or a stub list runs through `exclusive()`, so concurrent calls
 * never interleave half-applied changes nor lose one another's edits. Flow state and scenario state are
 * not queued: live traffic changes them too, so their store's own atomicity governs them.
 */
export class ImposterManager {
  private readonly imposters = new Map<number, Imposter>();
  private readonly ports = new PortAllocator();
  private queue: Promise<unknown> = Promise.resolve();
  /** Ports an admin write changed, collected while it runs under a fleet ('all' after DELETE /imposters). */
  private touched: Set<number> | 'all' | undefined;
  private readonly observers = new ObserverSet();
  /** The JavaScript sandbox shared by all imposters (worker threads), started by the first script. */
  private scriptHost: JsScriptHost | undefined;
  private readonly scripts = (): JsScriptHost => (this.scriptHost ??= createJsScriptHost({ log: this.options.log }));
  /** The `_svc.script` workers, started by the first script run. */
  private svcRunner: SvcScriptRunner | undefined;
  private readonly svcScripts = (): SvcScriptRunner =>
    (this.svcRunner ??= new SvcScriptRunner({ log: (level, message) => this.options.log[level](`svc::script ${message}`), javascript: this.scripts }));

  /** Shared by every imposter port and the front door: new bodies beyond it are answered 503. */
  readonly bodyBudget: BodyBudget;

  /** The gate for untrusted calls (admin routes, config files, reload); starts as `options.allowInjection`. */
  private injectionAllowed: boolean;
  private persistence: PersistenceHooks | undefined;
  /** The per-core runtime (`--runtime per-core`); undefined on one loop. */
  readonly runtime: PerCoreRuntime | undefined;

  /** Read-only once made: what changes later (injection permission, pre-delete hook) has its own method. */
  constructor(readonly options: Readonly<ManagerOptions>) {
    const runtime = options.runtime ?? runtimeFromEnv(process.env, (message) => options.log.warn(message));
    const perCore = runtime.mode === 'per-core';
    // Per-core: one count in shared memory, so the cap holds across engine threads.
    this.bodyBudget = new BodyBudget(options.maxBufferedBodyBytes ?? DEFAULT_BUFFERED_BODY_BYTES, perCore ? new SharedArrayBuffer(8) : undefined);
    this.injectionAllowed = options.allowInjection;
    this.persistence = options.persistence;
    if (perCore) {
      this.runtime = new PerCoreRuntime(runtime.workers, options.log);
      // A stub change may bring a TCP fault: engine threads must stop offering HTTP/2 on new connections.
      this.observers.add({ onLifecycle: (action) => action === 'stubsChanged' && this.runtime?.refresh() });
    }
    if (options.fleet) this.observers.add({ onLifecycle: (_action, port) => this.touch(port ?? 'all') });
  }

  private touch(port: number | 'all'): void {
    if (this.touched === undefined || this.touched === 'all') return;
    if (port === 'all') this.touched = 'all';
    else this.touched.add(port);
  }

  /** Loads the fleet's shared set (`options.fleet`) before anything is served; a no-op without one. */
  async joinFleet(): Promise<void> {
    await this.options.fleet?.attach(this);
  }

  /**
   * Binds a listener as the transport does; under per-core every engine thread accepts on it too, and
   * answers from `source`'s plan when it has one (else forwards to `handler`).
   */
  listen(options: ListenerOptions, handler: RequestHandler, source?: PlanSource): Promise<Listener> {
    return this.runtime ? this.runtime.listen(options, handler, source) : createListener(options, handler);
  }

  /** Registers a plane that follows requests and lifecycle (metrics, events, data directory); returns its removal. */
  observe(observer: EngineObserver): () => void {
    return this.observers.add(observer);
  }

  get allowInjection(): boolean {
    return this.injectionAllowed;
  }

  /** The admin plane's `allowInjection` (AdminApiServer, svc_serve_admin): what untrusted calls are gated by from now on. */
  setAllowInjection(allow: boolean): void {
    this.injectionAllowed = allow;
  }

  get hasPersistence(): boolean {
    return this.persistence !== undefined;
  }

  /** Installs the persistence hooks (a data directory); false, and nothing changed, when the manager already has some. */
  installPersistence(hooks: PersistenceHooks): boolean {
    if (this.persistence !== undefined) return false;
    this.persistence = hooks;
    return true;
  }

  /** What the persistence hooks keep of an imposter: its replayable JSON. */
  private durableForm(port: number): Record<string, unknown> {
    return this.render(port, { replayable: true, baseUrl: '' });
  }

  /** Makes the imposter just started on `port` durable; when that fails, `undo` stops it again and the failure is thrown. */
  private async persistOrUndo(port: number, undo: () => Promise<void>): Promise<void> {
    if (!this.persistence) return;
    try {
      this.persistence.persist(port, () => this.durableForm(port));
    } catch (err) {
      await undo();
      throw err;
    }
  }

  /** Writes `imposter` as it will be with `stubs`, before they are applied: a refused write changes nothing. */
  private persistStubs(imposter: Imposter, stubs: readonly LiveStub[]): void {
    this.persistence?.persist(imposter.port, () => imposter.renderingStubs(stubs, () => this.durableForm(imposter.port)));
  }

  /** Proxy recordings change stubs while serving: no caller to answer, so a failed write is logged. */
  private persistRecorded(port: number): void {
    try {
      this.persistence?.persist(port, () => this.durableForm(port));
    } catch (err) {
      this.options.log.error(`imposter ${port}: a recorded proxy response is served but not persisted: ${(err as Error).message}`);
    }
  }

  private admitsInjection(call: CallOptions): boolean {
    return call.trusted === true || this.injectionAllowed;
  }

  get compat(): Compat | undefined {
    return this.options.compat;
  }

  /** Stub ids are generated (docs/imposters.md) unless the caller or mountebank compatibility says not to. */
  private generatesIds(requested: boolean | undefined): boolean {
    return requested !== false && this.options.compat !== 'mountebank';
  }

  private rendering(render: RenderOptions): RenderOptions {
    return { ...render, compat: this.options.compat };
  }

  /** Request body cap of imposter ports (also what the front door enforces). */
  get maxBodyBytes(): number {
    return this.options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  }

  /** Admin writes: queued, and under a fleet admitted by it first and shared once applied. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const fleet = this.options.fleet;
    return this.queued(fleet ? () => this.shared(fleet, work) : work);
  }

  private async shared<T>(fleet: ConfigReplica, work: () => Promise<T>): Promise<T> {
    fleet.admit();
    this.touched = new Set();
    const commit = async () => {
      const touched = this.touched;
      this.touched = undefined;
      if (touched === 'all' || (touched && touched.size > 0))
        await fleet.committed(touched === 'all' ? 'all' : [...touched], (port, shared) => this.applyShared(port, shared));
    };
    let result: T;
    try {
      result = await work();
    } catch (err) {
      // A write that failed part-way (a partial apply) still shares what it changed.
      await commit().catch(() => undefined);
      throw err;
    }
    await commit();
    return result;
  }

  /**
   * The fleet's own entry: `work` runs in the queue (so it never interleaves with an admin write), neither
   * gated nor shared; `apply` sets one port to the shared config, or deletes it (undefined).
   */
  replicate<T>(work: (apply: ApplyShared) => Promise<T>): Promise<T> {
    return this.queued(() => work((port, shared) => this.applyShared(port, shared)));
  }

  private async applyShared(port: number, shared: SharedImposter | undefined): Promise<void> {
    const current = this.imposters.get(port);
    if (!shared) {
      if (!current) return;
      // The fleet deleted it: this node follows even if its data directory cannot drop the file.
      const refused = this.refusesDelete(port);
      if (refused) this.options.log.warn(`imposter ${port}: deleted by the fleet, but ${refused.message}`);
      await this.stop(current);
      this.observers.onLifecycle('deleted', port);
      return;
    }
    // This node's own injection policy applies: a scripted config it does not admit is not run here.
    const definition = this.parse(shared.config, { generateIds: false });
    const report: ApplyReport = { created: [], replaced: [], stubPatched: [], deleted: [], unchanged: [], failed: [] };
    const imposter = await this.reconcileOne(withStubIds(definition, current, false), report, true);
    const failed = report.failed[0];
    if (failed) throw new Error(failed.error);
    if (imposter) imposter.enabled = shared.enabled;
  }

  /** One imposter as a fleet shares it; undefined when this manager has none on the port. */
  sharedImposter(port: number): SharedImposter | undefined {
    const imposter = this.imposters.get(port);
    if (!imposter) return undefined;
    return { config: renderImposter(imposter, { replayable: true }), enabled: imposter.enabled };
  }

  private queued<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  list(): Imposter[] {
    return [...this.imposters.values()].sort((a, b) => a.port - b.port);
  }

  get(port: number): Imposter | undefined {
    return this.imposters.get(port);
  }

  require(port: number): Imposter {
    const imposter = this.imposters.get(port);
    if (imposter) return imposter;
    // mountebank 2.9.1's one message for every route on a missing imposter.
    throw errors.noSuchResource(this.options.compat === 'mountebank' ? 'Try POSTing to /imposters first?' : `no imposter on port ${port}`);
  }

  /** Validates an imposter config without starting it (POST /imposters, config files and data directories). */
  parse(body: unknown, options: ParseOptions = {}): ImposterDefinition {
    const { scriptBase } = options;
    const base = scriptBase ?? { dir: this.options.scriptsDir ?? process.cwd(), confined: true };
    return parseImposter(body, {
      allowInjection: this.admitsInjection(options),
      generateIds: this.generatesIds(options.generateIds),
      scriptBase: base,
      csvRoot: this.csvRoot(scriptBase),
      requireProtocol: this.options.compat === 'mountebank',
    });
  }

  /** POST /imposters. */
  createImposter(body: unknown, options: CreateOptions = {}): Promise<Imposter> {
    const definition = this.parse(body, options);
    return this.exclusive(async () => {
      const imposter = await this.start(definition);
      await this.persistOrUndo(imposter.port, () => this.stop(imposter));
      this.observers.onLifecycle('created', imposter.port);
      return imposter;
    });
  }

  private listenerOptions(definition: ImposterDefinition, port: number): ListenerOptions {
    const config = definition.config;
    return {
      protocol: definition.protocol,
      port,
      host: typeof config.host === 'string' ? config.host : this.options.host,
      key: typeof config.key === 'string' ? config.key : undefined,
      cert: typeof config.cert === 'string' ? config.cert : undefined,
      mutualAuth: config.mutualAuth === true,
      rejectUnauthorized: config.rejectUnauthorized === true,
      ca: isPemList(config.ca) ? config.ca : undefined,
      ciphers: typeof config.ciphers === 'string' ? config.ciphers.toUpperCase() : undefined,
      http2: !isHttp2Disabled(),
      maxBodyBytes: this.options.maxBodyBytes ?? DEFAULT_MAX_BODY,
      timeouts: this.options.timeouts,
      bodyBudget: this.bodyBudget,
      allowConnection: this.options.allowConnection,
      events: {
        accepted: (slot = 0) => this.observers.onConnection(port, slot),
        acceptFailed: (error) => this.observers.onAcceptError(port, error),
      },
    };
  }

  private async bind(definition: ImposterDefinition, port: number, flowStore: FlowStore | undefined): Promise<Imposter> {
    const imposter = new Imposter({
      definition,
      port,
      log: this.options.log,
      observers: this.observers,
      scriptHost: this.scripts,
      svcRunner: this.svcScripts,
      recordAll: this.options.recordAllRequests,
      debugMatches: this.options.debugMatches,
      flowStore,
      unknownFaultServesDefault: this.options.compat === 'mountebank',
      sharedState: this.runtime !== undefined,
      threads: this.runtime?.workers,
      persistRecorded: () => this.persistRecorded(port),
    });
    // Decided per connection: stubs added later may bring a TCP fault, which rules HTTP/2 out.
    const options = { ...this.listenerOptions(definition, port), http2Allowed: () => !imposter.usesTcpFault };
    imposter.listener = await this.listen(options, (req, sink) => imposter.handle(req, sink), imposter);
    const weak = options.protocol === 'https' ? weakCertificateReasons(options.cert) : [];
    if (weak.length > 0)
      this.options.log.warn(`imposter ${port}: weak TLS certificate (${weak.join(', ')}): served anyway (accepted at OpenSSL security level 0)`);
    imposter.tls = await tlsOf(definition);
    return imposter;
  }

  /**
   * Binds a new imposter with its flow store: `carried` (a replaced imposter's, docs/flow-state.md state kept),
   * else a redis store opened now (unreachable: 400, nothing bound), else a local one the imposter makes.
   */
  private async start(definition: ImposterDefinition, carried?: FlowStore): Promise<Imposter> {
    let store = carried;
    if (!store) {
      try {
        store = await openRemoteFlowStore(definition.config, this.observers);
      } catch (err) {
        throw errors.badData(`cannot use _svc.flowState: ${(err as Error).message}`);
      }
    }
    try {
      return await this.startWith(definition, store);
    } catch (err) {
      await store?.close();
      throw err;
    }
  }

  private async startWith(definition: ImposterDefinition, flowStore: FlowStore | undefined): Promise<Imposter> {
    let imposter: Imposter | undefined;
    if (definition.port !== 0) {
      if (this.imposters.has(definition.port)) throw errors.portInUse(definition.port, this.listenFailure(definition));
      try {
        imposter = await this.bind(definition, definition.port, flowStore);
      } catch (err) {
        throw this.bindError(err, definition.port, definition);
      }
    } else {
      for (const port of this.ports.candidates((p) => this.imposters.has(p))) {
        try {
          imposter = await this.bind(definition, port, flowStore);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw this.bindError(err, port);
        }
      }
      if (!imposter) throw errors.badData('no free port in 49152-65535');
    }
    this.imposters.set(imposter.port, imposter);
    this.options.log.info(`${imposter.protocol}:${imposter.port} Open for business...`);
    return imposter;
  }

  private bindError(err: unknown, port: number, definition?: ImposterDefinition): Error {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') return errors.portInUse(port, definition && this.listenFailure(definition, err as NodeJS.ErrnoException));
    if (code === 'EACCES') return errors.insufficientAccess();
    if (isSvcError(err)) return err;
    return errors.badData(`cannot start imposter on port ${port}: ${(err as Error).message}`);
  }

  /**
   * The listen error binding the imposter's port gives (or would give, when one of ours holds it):
   * mountebank answers a taken port with it. No host binds every interface, `::`.
   */
  private listenFailure(definition: ImposterDefinition, err?: NodeJS.ErrnoException & { address?: string }): ListenFailure {
    const host = this.listenerOptions(definition, definition.port).host;
    return {
      code: 'EADDRINUSE',
      errno: err?.errno ?? -osConstants.errno.EADDRINUSE,
      syscall: err?.syscall ?? 'listen',
      address: err?.address ?? host ?? '::',
      port: definition.port,
    };
  }

  /** The pre-delete hook's refusal, if any (the imposter must then stay). */
  private refusesDelete(port: number): Error | undefined {
    try {
      this.persistence?.beforeDelete(port);
      return undefined;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  /** `keepFlowStore`: the store passes to the imposter replacing this one (its flow state survives). */
  private async stop(imposter: Imposter, keepFlowStore = false): Promise<void> {
    this.imposters.delete(imposter.port);
    // A replaced or re-created imposter starts with fresh script state, as in mountebank.
    this.scriptHost?.forget(imposter.port);
    await imposter.listener?.close();
    if (!keepFlowStore)
      await imposter.flowStore
        .close()
        .catch((err: unknown) => this.options.log.warn(`imposter ${imposter.port}: closing its flow store: ${(err as Error).message}`));
    this.observers.onListenerClosed(imposter.port);
    this.options.log.info(`${imposter.protocol}:${imposter.port} Ciao for now`);
  }

  /**
   * DELETE /imposters/{port}: resolves after the port is unbound and connections closed. A missing
   * imposter is a 404 (docs/imposters.md), or `{}` under mountebank compatibility, as 2.9.1 answers.
   */
  deleteImposter(port: number, render: RenderOptions): Promise<Record<string, unknown>> {
    return this.exclusive(async () => {
      if (this.options.compat === 'mountebank' && !this.imposters.has(port)) return {};
      const imposter = this.require(port);
      this.persistence?.beforeDelete(port);
      const snapshot = renderDeleted(imposter, this.rendering(render));
      await this.stop(imposter);
      this.observers.onLifecycle('deleted', port);
      return snapshot;
    });
  }

  /** DELETE /imposters: every imposter torn down; returns their snapshots. */
  deleteAll(render: RenderOptions): Promise<Array<Record<string, unknown>>> {
    return this.exclusive(async () => {
      const kept: ErrorEntry[] = [];
      const doomed = this.list().filter((imposter) => {
        const refused = this.refusesDelete(imposter.port);
        if (refused) kept.push(...(isSvcError(refused) ? refused.entries : [errorEntries.badData(refused.message)]));
        return !refused;
      });
      const snapshots = doomed.map((imposter) => renderImposter(imposter, this.rendering(render)));
      await Promise.all(doomed.map((imposter) => this.stop(imposter)));
      if (kept.length === 0) {
        this.observers.onLifecycle('allDeleted', null);
        return snapshots;
      }
      for (const imposter of doomed) this.observers.onLifecycle('deleted', imposter.port);
      throw new SvcError(503, kept);
    });
  }

  /** PUT /imposters and svc_apply_config: the body `{imposters: [...]}`, applied as `applyAll` does. */
  applyConfig(body: unknown, options: ApplyOptions = {}): Promise<{ report: ApplyReport; imposters: Imposter[] }> {
    if (!isObject(body)) throw errors.badData('request body must be a JSON object');
    if (!('imposters' in body)) throw errors.badData("'imposters' is a required field");
    return this.applyAll(body.imposters, options);
  }

  /**
   * The imposter set, reload and startup: validate the whole set first, then reconcile — absent deleted,
   * changed replaced (or stub-patched when only stubs differ), unchanged kept with their journal and
   * cycling state; explicit ports first, then auto-assigned ones.
   */
  applyAll(bodies: unknown, options: ApplyOptions = {}): Promise<{ report: ApplyReport; imposters: Imposter[] }> {
    if (!Array.isArray(bodies)) throw errors.badData("'imposters' must be an array");
    const scriptBases = options.scriptBases ?? [];
    // Ids are given in reconcile, where identical running stubs lend theirs.
    const definitions = bodies.map((body, i) => this.parse(body, { trusted: options.trusted, generateIds: false, scriptBase: scriptBases[i] }));
    const seen = new Set<number>();
    for (const d of definitions) {
      if (d.port === 0) continue;
      if (seen.has(d.port)) throw errors.badData(`duplicate port ${d.port} in imposters`);
      seen.add(d.port);
    }
    return this.exclusive(async () => {
      if (!options.partial) await this.preflight(definitions);
      return this.reconcile(definitions, this.generatesIds(options.generateIds), options.fromSources !== true);
    });
  }

  /**
   * What applying the set could fail on that can be known before the first change (docs/imposters.md: a
   * validation failure is a 400 with the running set unchanged): every imposter compiles, its TLS
   * material loads, and a port it needs is not held by another process.
   */
  private async preflight(definitions: ImposterDefinition[]): Promise<void> {
    const problems: ErrorEntry[] = [];
    for (const definition of definitions) {
      try {
        new Imposter({
          definition,
          port: definition.port,
          log: silentLogger,
          observers: new ObserverSet(),
          scriptHost: this.scripts,
          flowStore: new NoopFlowStore(),
        });
      } catch (err) {
        problems.push(errorEntries.badData(`imposter on port ${definition.port} cannot be built: ${(err as Error).message}`));
        continue;
      }
      const held = this.imposters.has(definition.port);
      try {
        await checkBindable(this.listenerOptions(definition, definition.port), !held);
      } catch (err) {
        const error = this.bindError(err, definition.port, definition);
        problems.push(...(isSvcError(error) ? error.entries : [errorEntries.badData(error.message)]));
      }
    }
    if (problems.length > 0) throw errors.validation(problems);
  }

  private async reconcile(definitions: ImposterDefinition[], generateIds: boolean, persist: boolean): Promise<{ report: ApplyReport; imposters: Imposter[] }> {
    const report: ApplyReport = { created: [], replaced: [], stubPatched: [], deleted: [], unchanged: [], failed: [] };
    const explicit = definitions.filter((d) => d.port !== 0);
    const wanted = new Set(explicit.map((d) => d.port));
    for (const imposter of this.list()) {
      if (wanted.has(imposter.port)) continue;
      const refused = this.refusesDelete(imposter.port);
      if (refused) {
        report.failed.push({ port: imposter.port, error: refused.message });
        continue;
      }
      await this.stop(imposter);
      report.deleted.push(imposter.port);
      this.observers.onLifecycle('deleted', imposter.port);
    }
    const result: Imposter[] = [];
    for (const definition of explicit) {
      try {
        const imposter = await this.reconcileOne(withStubIds(definition, this.imposters.get(definition.port), generateIds), report, persist);
        if (imposter) result.push(imposter);
      } catch (err) {
        report.failed.push({ port: definition.port, error: (err as Error).message });
      }
    }
    for (const definition of definitions.filter((d) => d.port === 0)) {
      try {
        const imposter = await this.start(withStubIds(definition, undefined, generateIds));
        if (persist) await this.persistOrUndo(imposter.port, () => this.stop(imposter));
        report.created.push(imposter.port);
        this.observers.onLifecycle('created', imposter.port);
        result.push(imposter);
      } catch (err) {
        report.failed.push({ port: 0, error: (err as Error).message });
      }
    }
    return { report, imposters: result.sort((a, b) => a.port - b.port) };
  }

  /** Undefined when a replacement failed and the replaced imposter could not be started again (reported). */
  private async reconcileOne(definition: ImposterDefinition, report: ApplyReport, persist: boolean): Promise<Imposter | undefined> {
    const current = this.imposters.get(definition.port);
    if (!current) {
      const created = await this.start(definition);
      if (persist) await this.persistOrUndo(created.port, () => this.stop(created));
      report.created.push(created.port);
      this.observers.onLifecycle('created', created.port);
      return created;
    }
    const sameHeader = isDeepStrictEqual(
      comparableHeader({ ...definition.config, port: definition.port }, await tlsOf(definition)),
      comparableHeader(current.config, current.tls),
    );
    const newStubs = definition.stubs.map((s) => s.config);
    const sameStubs = isDeepStrictEqual(
      newStubs,
      current.stubs.map((s) => s.config),
    );
    if (sameHeader && sameStubs) {
      report.unchanged.push(current.port);
      return current;
    }
    if (sameHeader) {
      const stubs = this.reuseStubs(current, definition.stubs);
      if (persist) this.persistStubs(current, stubs);
      current.setStubs(stubs);
      report.stubPatched.push(current.port);
      this.observers.onLifecycle('stubsChanged', current.port);
      return current;
    }
    // An unchanged _svc.flowState keeps its store, so flow state survives the replacement (docs/flow-state.md).
    const carried =
      current.flowStore.backend !== 'noop' && isDeepStrictEqual(flowStateOf(current.config), flowStateOf(definition.config)) ? current.flowStore : undefined;
    await this.stop(current, carried !== undefined);
    let replaced: Imposter;
    try {
      replaced = await this.start(definition, carried);
    } catch (err) {
      return this.restore(current, err as Error, report);
    }
    if (persist) {
      try {
        this.persistence?.persist(replaced.port, () => this.durableForm(replaced.port));
      } catch (err) {
        // The file still holds the old imposter: run that again (docs/flow-state.md state kept only with its store).
        await this.stop(replaced, carried !== undefined);
        return this.restore(current, err as Error, report, carried);
      }
    }
    report.replaced.push(replaced.port);
    this.observers.onLifecycle('replaced', replaced.port);
    return replaced;
  }

  /** A replacement failed after the old imposter stopped: start the old config again, so the port is not silently lost. */
  private async restore(previous: Imposter, failure: Error, report: ApplyReport, carried?: FlowStore): Promise<Imposter | undefined> {
    try {
      const restored = await this.start(definitionOf(previous), carried);
      report.failed.push({ port: previous.port, error: failure.message, restored: true });
      this.observers.onLifecycle('replaced', restored.port);
      return restored;
    } catch (err) {
      this.options.log.error(
        `imposter ${previous.port}: replacement failed (${failure.message}) and the previous one could not be restarted: ${(err as Error).message}`,
      );
      report.failed.push({ port: previous.port, error: failure.message, restored: false });
      report.deleted.push(previous.port);
      this.observers.onLifecycle('deleted', previous.port);
      return undefined;
    }
  }

  /** Keeps the live state (response cycle) of stubs whose config did not change. */
  private reuseStubs(imposter: Imposter, stubs: StubDefinition[]): LiveStub[] {
    const pool = new ConfigPool(imposter.stubs, (live) => canonicalJson(live.config));
    return stubs.map((stub) => pool.take(canonicalJson(stub.config)) ?? imposter.liveStub(stub));
  }

  /** A stub-list edit: made durable (a refused write throws, nothing changed), applied, then announced. */
  private async changeStubs(imposter: Imposter, stubs: LiveStub[]): Promise<void> {
    this.persistStubs(imposter, stubs);
    imposter.setStubs(stubs);
    this.observers.onLifecycle('stubsChanged', imposter.port);
  }

  /** POST /imposters/{port}/enable and /disable. */
  setEnabled(port: number, state: { enabled: boolean }): Promise<Imposter> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      imposter.enabled = state.enabled;
      this.touch(port);
      return imposter;
    });
  }

  // ---- stubs (docs/imposters.md) ----

  private stubOptions(options: StubEditOptions, imposter: Imposter) {
    return {
      allowInjection: this.admitsInjection(options),
      generateIds: this.generatesIds(options.generateIds),
      scripts: imposter.scriptSettings,
      csvRoot: this.csvRoot(imposter.scriptSettings.base),
    };
  }

  /** Lookup CSVs are confined like `file:` scripts: under `--scripts-dir`, for imposters not loaded from a config file. */
  private csvRoot(base: ScriptBase | undefined): string | undefined {
    return base === undefined || base.confined ? this.options.scriptsDir : undefined;
  }

  /** PUT /imposters/{port}/stubs: the body `{stubs: [...]}`. */
  replaceStubs(port: number, body: unknown, options: StubEditOptions = {}): Promise<Imposter> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      if (!isObject(body)) throw errors.badData('request body must be a JSON object');
      if (body.stubs === undefined) throw errors.badData("'stubs' is a required field");
      if (!Array.isArray(body.stubs)) throw errors.badData("'stubs' must be an array");
      const parsed = parseStubs(body.stubs, this.stubOptions(options, imposter));
      await this.changeStubs(imposter, this.reuseStubs(imposter, parsed));
      return imposter;
    });
  }

  /** POST /imposters/{port}/stubs; a missing `stub` is reported with a bad `index` in one 400. */
  addStub(port: number, stub: unknown, options: AddStubOptions = {}): Promise<Imposter> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      const length = imposter.stubs.length;
      const at = options.index === undefined ? length : options.index;
      const problems = [];
      if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at > length) {
        problems.push(errorEntries.badData("'index' must be between 0 and the length of the stubs array"));
      }
      if (stub === undefined) problems.push(errorEntries.badData("must contain 'stub' field"));
      if (problems.length > 0) throw errors.validation(problems);
      const [parsed] = parseStubs([stub], this.stubOptions(options, imposter), this.ids(imposter), () => 'stub');
      const next = [...imposter.stubs];
      next.splice(at as number, 0, imposter.liveStub(parsed));
      await this.changeStubs(imposter, next);
      return imposter;
    });
  }

  /** Whether a stub of the imposter (but the one at `except`) has the id: a scan, paid only for ids an edit brings. */
  private ids(imposter: Imposter, except?: number): (id: string) => boolean {
    return (id) => imposter.stubs.some((s, i) => i !== except && s.config.id === id);
  }

  /** Index of the referenced stub, or a 404 (unknown id) / 400-style error (bad index). */
  resolveStub(imposter: Imposter, ref: StubRef): number {
    if ('id' in ref) {
      const at = imposter.stubs.findIndex((s) => s.config.id === ref.id);
      if (at === -1) throw errors.noSuchResource(`no stub with id '${ref.id}'`);
      return at;
    }
    if (!Number.isInteger(ref.index) || ref.index < 0 || ref.index >= imposter.stubs.length) {
      throw new SvcError(404, [errorEntries.badData("'stubIndex' must be a valid integer, representing the array index position of the stub to replace")]);
    }
    return ref.index;
  }

  getStub(port: number, ref: StubRef, options: LinkOptions = {}): Record<string, unknown> {
    const imposter = this.require(port);
    const at = this.resolveStub(imposter, ref);
    const stub = imposter.stubConfigs()[at];
    return options.baseUrl === undefined ? stub : { ...stub, _links: stubLinks(options.baseUrl, port, at) };
  }

  listStubs(port: number, options: LinkOptions = {}): Array<Record<string, unknown>> {
    const imposter = this.require(port);
    const { baseUrl } = options;
    return imposter.stubConfigs().map((stub, i) => (baseUrl === undefined ? stub : { ...stub, _links: stubLinks(baseUrl, port, i) }));
  }

  /** PUT /imposters/{port}/stubs/{index} and .../by-id/{id}: the body is the stub (by id, its id is kept when left out). */
  updateStub(port: number, ref: StubRef, stub: unknown, options: StubEditOptions = {}): Promise<Imposter> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      if (!isObject(stub)) throw errors.badData('stub must be a JSON object');
      const at = this.resolveStub(imposter, ref);
      const replacement = 'id' in ref && stub.id === undefined ? { ...stub, id: ref.id } : stub;
      // The body is the stub itself: its fields' paths start at the document root.
      const [parsed] = parseStubs([replacement], this.stubOptions(options, imposter), this.ids(imposter, at), () => '$');
      const next = [...imposter.stubs];
      next[at] = imposter.liveStub(parsed);
      await this.changeStubs(imposter, next);
      return imposter;
    });
  }

  deleteStub(port: number, ref: StubRef): Promise<Imposter> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      const at = this.resolveStub(imposter, ref);
      await this.changeStubs(
        imposter,
        imposter.stubs.filter((_, i) => i !== at),
      );
      return imposter;
    });
  }

  // ---- recorded requests (docs/recording-and-verify.md) ----

  savedRequests(port: number, query: SavedRequestsQuery): SavedRequestsPage {
    const imposter = this.require(port);
    const clauses = parseClauses(query.match ?? []);
    if (typeof clauses === 'string') throw errors.badData(clauses);
    const page = imposter.journal.page(query.since, (r) => clausesMatch(clauses, r, (recorded) => imposter.recordedFlowId(recorded)));
    return { requests: page.entries.map((e) => e.value), nextIndex: page.nextIndex, truncated: page.truncated };
  }

  clearRequests(port: number, options: ClearRequestsOptions = {}): Promise<Imposter> {
    // The journal is per node, even in a fleet: not a shared write.
    return this.queued(async () => {
      const imposter = this.require(port);
      const clauses = parseClauses(options.match ?? []);
      if (typeof clauses === 'string') throw errors.badData(clauses);
      if (clauses.length === 0) {
        imposter.journal.clear();
        imposter.numberOfRequests = 0;
      } else {
        const removed = imposter.journal.clear((r) => clausesMatch(clauses, r, (recorded) => imposter.recordedFlowId(recorded)));
        imposter.numberOfRequests = Math.max(0, imposter.numberOfRequests - removed);
      }
      return imposter;
    });
  }

  /**
   * DELETE /imposters/{port}/savedProxyResponses: drops every response a proxy recorded, and the
   * stubs left without responses (mountebank); untouched stubs keep their cycling state.
   */
  clearProxyResponses(port: number): Promise<Imposter> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      let changed = false;
      const next: LiveStub[] = [];
      for (const live of imposter.stubs) {
        const responses = live.config.responses as unknown[];
        const kept = responses.filter((response) => !isRecordedProxyResponse(response));
        if (kept.length === responses.length) {
          next.push(live);
          continue;
        }
        changed = true;
        if (kept.length > 0) next.push(imposter.liveStub({ config: { ...live.config, responses: kept } }));
      }
      if (changed) await this.changeStubs(imposter, next);
      return imposter;
    });
  }

  /** POST /imposters/{port}/verify: a read, so not queued behind mutations. */
  async verify(port: number, body: unknown, options: VerifyOptions = {}): Promise<VerifyResult> {
    const imposter = this.require(port);
    if (!isObject(body)) throw errors.badData('request body must be a JSON object');
    if (!Array.isArray(body.predicates)) throw errors.badData("'predicates' must be an array");
    if (!this.admitsInjection(options) && predicatesAreScripted(body.predicates)) {
      throw errors.validation([errorEntries.invalidInjection(injectionMessages.javascript)]);
    }
    return verifyRequests(imposter, body);
  }

  // ---- scenarios and spaces (docs/scenarios-and-spaces.md, §4.7); a flow id left out is the default flow (the port) ----

  scenarios(port: number, flowId?: string): Promise<ScenarioList> {
    const imposter = this.require(port);
    return listScenarios(imposter, flowIdOrDefault(imposter, flowId));
  }

  /** Body `{state, flowId?}`; a missing or non-string `state` is a 400. */
  setScenarioState(port: number, name: string, body: unknown): Promise<{ flowId: string; name: string; state: string }> {
    return putScenarioState(this.require(port), name, body);
  }

  resetScenarios(port: number, flowId?: string): Promise<{ flowId: string; reset: true }> {
    const imposter = this.require(port);
    return resetScenarios(imposter, flowIdOrDefault(imposter, flowId));
  }

  /** A bare stub scoped to the flow, placed before the shared stubs (engine/state/spaces.ts says why). */
  spaceAddStub(port: number, flowId: string, stub: unknown, options: StubEditOptions = {}): Promise<SpaceStubs> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      const [parsed] = parseStubs([spaceStub(stub, flowId)], this.stubOptions(options, imposter), this.ids(imposter), () => '');
      const next = [...imposter.stubs];
      next.splice(
        spaceInsertIndex(
          next.map((live) => live.config),
          flowId,
        ),
        0,
        imposter.liveStub(parsed),
      );
      await this.changeStubs(imposter, next);
      return spaceStubs(imposter, flowId);
    });
  }

  spaceListStubs(port: number, flowId: string): SpaceStubs {
    return spaceStubs(this.require(port), flowId);
  }

  spaceGet(port: number, flowId: string): Promise<SpaceDetail> {
    return spaceDetail(this.require(port), flowId);
  }

  spaceRecorded(port: number, flowId: string): RecordedRequest[] {
    return recordedInSpace(this.require(port), flowId);
  }

  spaceDelete(port: number, flowId: string): Promise<{ space: string; tornDown: true }> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      return deleteSpace(imposter, flowId, (kept) => this.changeStubs(imposter, kept));
    });
  }

  // ---- flow state (docs/flow-state.md): 404 unknown imposter or absent key, 503 when the store fails ----

  flowStateGet(port: number, flowId: string, key: string): Promise<{ flowId: string; key: string; value: unknown }> {
    return getFlowState(this.require(port), flowId, key);
  }

  /** Body `{value: any JSON}`; a missing `value` is a 400. */
  flowStatePut(port: number, flowId: string, key: string, body: unknown): Promise<{ flowId: string; key: string; value: unknown }> {
    return putFlowState(this.require(port), flowId, key, body);
  }

  flowStateDelete(port: number, flowId: string, key: string): Promise<{ flowId: string; key: string; deleted: true }> {
    return deleteFlowState(this.require(port), flowId, key);
  }

  flowStateList(port: number, flowId: string): Promise<{ flowId: string; values: Record<string, unknown> }> {
    return listFlowState(this.require(port), flowId);
  }

  flowStateClear(port: number, flowId: string): Promise<{ flowId: string; cleared: true }> {
    return clearFlowState(this.require(port), flowId);
  }

  // ---- rendering (same JSON for every surface) ----

  /** The summary form, or the full one with `replayable` (mountebank: also with `removeProxies`). */
  renderList(render: RenderOptions): Array<Record<string, unknown>> {
    const options = this.rendering(render);
    const full = options.replayable || (options.compat === 'mountebank' && options.removeProxies);
    return this.list().map((imposter) => (full ? renderImposter(imposter, options) : renderSummary(imposter, options)));
  }

  render(port: number, render: RenderOptions): Record<string, unknown> {
    return renderImposter(this.require(port), this.rendering(render));
  }

  /** `render` as the admin API writes it (JSON.stringify with two-space indent) in UTF-8 chunks, built from the stubs' kept text. */
  renderText(port: number, render: RenderOptions): readonly Uint8Array[] {
    return renderImposterText(this.require(port), this.rendering(render));
  }

  /** Tears everything down (process shutdown). */
  async close(): Promise<void> {
    // The fleet first: its feed must not start imposters again while they stop (they stay in the fleet).
    await this.options.fleet?.close();
    await this.queued(() => Promise.all(this.list().map((imposter) => this.stop(imposter))));
    await this.scriptHost?.close();
    this.scriptHost = undefined;
    await this.svcRunner?.close();
    this.svcRunner = undefined;
    await this.runtime?.close();
  }
}

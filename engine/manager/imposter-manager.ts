import { errors, isObject } from '../model/index.js';
import type { ImposterDefinition } from '../validate/index.js';
import { BodyBudget, DEFAULT_BUFFERED_BODY_BYTES, type Listener, type ListenerOptions, type RequestHandler } from '../transport/index.js';
import { PerCoreRuntime, runtimeFromEnv, type PlanSource } from '../runtime/index.js';
import type { Imposter, LiveStub } from './imposter.js';
import { renderDeleted, renderImposter, renderImposterText, renderSummary, replayableText, type Compat, type RenderOptions } from './imposter-json.js';
import type { RecordedRequest } from './recorded-request.js';
import { verifyBody, type VerifyResult } from './verify.js';
import { clearFlowState, deleteFlowState, getFlowState, listFlowState, putFlowState } from './flow-state-api.js';
import { ObserverSet, type EngineObserver } from './observer.js';
import {
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
import type { ApplyShared, SharedImposter } from './fleet-replica.js';
import type {
  AddStubOptions,
  ApplyOptions,
  ApplyReport,
  ClearRequestsOptions,
  CreateOptions,
  LinkOptions,
  ManagerOptions,
  ParseOptions,
  PersistenceHooks,
  SavedRequestsPage,
  SavedRequestsQuery,
  StubEditOptions,
  StubRef,
  VerifyOptions,
} from './options.js';
import { CallPolicy } from './call-policy.js';
import { Durability } from './durability.js';
import { clearRecordedRequests, savedRequestsPage } from './journal-queries.js';
import { Reconciler } from './reconcile.js';
import { DEFAULT_MAX_BODY, RunningImposters } from './running-imposters.js';
import { StubEdits } from './stub-edits.js';
import { WriteQueue } from './write-queue.js';

/**
 * The one API every surface calls (admin HTTP, C ABI host, embedding): same calls, same checks, same
 * JSON. Every change to the imposter set or a stub list runs through `exclusive()` (write-queue.ts), so
 * concurrent calls never interleave half-applied changes nor lose one another's edits. Flow state and
 * scenario state are not queued: live traffic changes them too, so their store's own atomicity governs
 * them. The work itself lives beside it: running-imposters.ts (bind and stop), reconcile.ts (the
 * imposter set), stub-edits.ts (one stub list), durability.ts (the data directory), call-policy.ts
 * (injection gate, ids, compat), flow-scopes.ts and flow-state-api.ts (flows and spaces).
 */
export class ImposterManager {
  private readonly observers = new ObserverSet();
  private readonly policy: CallPolicy;
  private readonly durability: Durability;
  private readonly running: RunningImposters;
  private readonly writes: WriteQueue;
  private readonly reconciler: Reconciler;
  private readonly stubs: StubEdits;

  /** Shared by every imposter port and the front door: new bodies beyond it are answered 503. */
  readonly bodyBudget: BodyBudget;
  /** The per-core runtime (`--runtime per-core`); undefined on one loop. */
  readonly runtime: PerCoreRuntime | undefined;

  /** Read-only once made: what changes later (injection permission, pre-delete hook) has its own method. */
  constructor(readonly options: Readonly<ManagerOptions>) {
    const runtime = options.runtime ?? runtimeFromEnv(process.env, (message) => options.log.warn(message));
    const perCore = runtime.mode === 'per-core';
    // Per-core: one count in shared memory, so the cap holds across engine threads.
    this.bodyBudget = new BodyBudget(options.maxBufferedBodyBytes ?? DEFAULT_BUFFERED_BODY_BYTES, perCore ? new SharedArrayBuffer(8) : undefined);
    this.policy = new CallPolicy(options);
    this.durability = new Durability(options.persistence, (port, stubs) => this.durableText(port, stubs), options.log);
    if (perCore) {
      this.runtime = new PerCoreRuntime(runtime.workers, options.log);
      // A stub change may bring a TCP fault: engine threads must stop offering HTTP/2 on new connections.
      this.observers.add({ onLifecycle: (action) => action === 'stubsChanged' && this.runtime?.refresh() });
    }
    const { observers, durability } = this;
    this.running = new RunningImposters({
      options,
      observers,
      bodyBudget: this.bodyBudget,
      runtime: this.runtime,
      persistRecorded: (port) => durability.persistRecorded(port),
      shareRecording: (work) => (options.fleet ? this.writes.recording(options.fleet, work) : work()),
    });
    this.reconciler = new Reconciler({ running: this.running, durability, observers, log: options.log, parse: (body, o) => this.parse(body, o) });
    this.writes = new WriteQueue(options.fleet, (port, shared) => this.reconciler.applyShared(port, shared));
    this.stubs = new StubEdits(this.policy, durability, observers);
    if (options.fleet) this.observers.add({ onLifecycle: (_action, port) => this.writes.touch(port ?? 'all') });
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
    return this.running.listen(options, handler, source);
  }

  /** Registers a plane that follows requests and lifecycle (metrics, events, data directory); returns its removal. */
  observe(observer: EngineObserver): () => void {
    return this.observers.add(observer);
  }

  get allowInjection(): boolean {
    return this.policy.injectionAllowed;
  }

  /** The admin plane's `allowInjection` (AdminApiServer, svc_serve_admin): what untrusted calls are gated by from now on. */
  setAllowInjection(allow: boolean): void {
    this.policy.injectionAllowed = allow;
  }

  get hasPersistence(): boolean {
    return this.durability.installed;
  }

  /** Installs the persistence hooks (a data directory); false, and nothing changed, when the manager already has some. */
  installPersistence(hooks: PersistenceHooks): boolean {
    return this.durability.install(hooks);
  }

  get compat(): Compat | undefined {
    return this.options.compat;
  }

  /** Request body cap of imposter ports (also what the front door enforces). */
  get maxBodyBytes(): number {
    return this.options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  }

  /** Admin writes: queued, and under a fleet admitted by it first and shared once applied. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.writes.exclusive(work);
  }

  /**
   * The fleet's own entry: `work` runs in the queue (so it never interleaves with an admin write), neither
   * gated nor shared; `apply` sets one port to the shared config, or deletes it (undefined).
   */
  replicate<T>(work: (apply: ApplyShared) => Promise<T>): Promise<T> {
    return this.writes.queued(() => work((port, shared) => this.reconciler.applyShared(port, shared)));
  }

  /** One imposter as a fleet shares it; undefined when this manager has none on the port. */
  sharedImposter(port: number): SharedImposter | undefined {
    const imposter = this.running.get(port);
    if (!imposter) return undefined;
    return { config: renderImposter(imposter, { replayable: true, recordingTimes: true }), enabled: imposter.enabled };
  }

  list(): Imposter[] {
    return this.running.list();
  }

  get(port: number): Imposter | undefined {
    return this.running.get(port);
  }

  require(port: number): Imposter {
    const imposter = this.running.get(port);
    if (imposter) return imposter;
    // mountebank 2.9.1's one message for every route on a missing imposter.
    throw errors.noSuchResource(this.options.compat === 'mountebank' ? 'Try POSTing to /imposters first?' : `no imposter on port ${port}`);
  }

  /** Validates an imposter config without starting it (POST /imposters, config files and data directories). */
  parse(body: unknown, options: ParseOptions = {}): ImposterDefinition {
    return this.policy.parse(body, options);
  }

  /** POST /imposters. */
  createImposter(body: unknown, options: CreateOptions = {}): Promise<Imposter> {
    const definition = this.parse(body, options);
    return this.exclusive(() => this.reconciler.create(definition));
  }

  /**
   * DELETE /imposters/{port}: resolves after the port is unbound and connections closed. A missing
   * imposter is a 404 (docs/imposters.md), or `{}` under mountebank compatibility, as 2.9.1 answers.
   */
  deleteImposter(port: number, render: RenderOptions): Promise<Record<string, unknown>> {
    return this.exclusive(async () => {
      if (this.options.compat === 'mountebank' && !this.running.has(port)) return {};
      const imposter = this.require(port);
      this.durability.beforeDelete(port);
      const snapshot = renderDeleted(imposter, this.policy.rendering(render));
      await this.running.stop(imposter);
      this.observers.onLifecycle('deleted', port);
      return snapshot;
    });
  }

  /** DELETE /imposters: every imposter torn down; returns their snapshots. */
  deleteAll(render: RenderOptions): Promise<Array<Record<string, unknown>>> {
    return this.exclusive(() => this.reconciler.deleteAll((imposter) => renderImposter(imposter, this.policy.rendering(render))));
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
    const definitions = this.reconciler.definitionsOf(bodies, options);
    return this.exclusive(async () => {
      if (!options.partial) await this.reconciler.preflight(definitions);
      return this.reconciler.reconcile(definitions, this.policy.generatesIds(options.generateIds), options.fromSources !== true);
    });
  }

  /** POST /imposters/{port}/enable and /disable. */
  setEnabled(port: number, state: { enabled: boolean }): Promise<Imposter> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      imposter.enabled = state.enabled;
      this.writes.touch(port);
      return imposter;
    });
  }

  // ---- stubs (docs/imposters.md): stub-edits.ts ----

  /** Runs a stub-list edit of the imposter on `port` in the write queue; resolves to the imposter. */
  private editStubs(port: number, edit: (imposter: Imposter) => Promise<void>): Promise<Imposter> {
    return this.exclusive(async () => {
      const imposter = this.require(port);
      await edit(imposter);
      return imposter;
    });
  }

  /** PUT /imposters/{port}/stubs: the body `{stubs: [...]}`. */
  replaceStubs(port: number, body: unknown, options: StubEditOptions = {}): Promise<Imposter> {
    return this.editStubs(port, (imposter) => this.stubs.replace(imposter, body, options));
  }

  /** POST /imposters/{port}/stubs; a missing `stub` is reported with a bad `index` in one 400. */
  addStub(port: number, stub: unknown, options: AddStubOptions = {}): Promise<Imposter> {
    return this.editStubs(port, (imposter) => this.stubs.add(imposter, stub, options));
  }

  /** Index of the referenced stub, or a 404 (unknown id) / 400-style error (bad index). */
  resolveStub(imposter: Imposter, ref: StubRef): number {
    return this.stubs.resolve(imposter, ref);
  }

  getStub(port: number, ref: StubRef, options: LinkOptions = {}): Record<string, unknown> {
    return this.stubs.get(this.require(port), ref, options);
  }

  listStubs(port: number, options: LinkOptions = {}): Array<Record<string, unknown>> {
    return this.stubs.list(this.require(port), options);
  }

  /** PUT /imposters/{port}/stubs/{index} and .../by-id/{id}: the body is the stub (by id, its id is kept when left out). */
  updateStub(port: number, ref: StubRef, stub: unknown, options: StubEditOptions = {}): Promise<Imposter> {
    return this.editStubs(port, (imposter) => this.stubs.update(imposter, ref, stub, options));
  }

  deleteStub(port: number, ref: StubRef): Promise<Imposter> {
    return this.editStubs(port, (imposter) => this.stubs.remove(imposter, ref));
  }

  /** DELETE /imposters/{port}/savedProxyResponses (stub-edits.ts says what is kept). */
  clearProxyResponses(port: number): Promise<Imposter> {
    return this.editStubs(port, (imposter) => this.stubs.clearProxyResponses(imposter));
  }

  // ---- recorded requests (docs/recording-and-verify.md) ----

  /**
   * A fleet (docs/runtime.md): brings the journal and numberOfRequests of the imposter on `port` (all
   * imposters when left out) up to what every node recorded; a no-op on a single node. The reads below
   * call it themselves; an embedder calls it before `render` to see every node's requests there too.
   */
  async syncJournals(port?: number): Promise<void> {
    if (!this.options.fleet) return;
    if (port !== undefined) {
      await this.get(port)?.syncJournal();
      return;
    }
    await Promise.all(this.list().map((imposter) => imposter.syncJournal()));
  }

  /**
   * GET /imposters/{port}/savedRequests: in a fleet, every node's records. Off a fleet there is nothing
   * to wait for and the page comes back as it is: a tailer's empty poll costs no turn of microtasks.
   */
  savedRequests(port: number, query: SavedRequestsQuery): SavedRequestsPage | Promise<SavedRequestsPage> {
    if (!this.options.fleet) return savedRequestsPage(this.require(port), query);
    return this.syncJournals(port).then(() => savedRequestsPage(this.require(port), query));
  }

  clearRequests(port: number, options: ClearRequestsOptions = {}): Promise<Imposter> {
    // Not a config write: a fleet clears its shared journal itself (Imposter.clearRecords).
    return this.writes.queued(async () => {
      const imposter = this.require(port);
      await clearRecordedRequests(imposter, options.match ?? []);
      return imposter;
    });
  }

  /** POST /imposters/{port}/verify: a read, so not queued behind mutations. */
  async verify(port: number, body: unknown, options: VerifyOptions = {}): Promise<VerifyResult> {
    await this.syncJournals(port);
    return verifyBody(this.require(port), body, this.policy.admitsInjection(options));
  }

  // ---- scenarios and spaces (docs/scenarios-and-spaces.md); a flow id left out is the default flow (the port) ----

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
    return this.exclusive(() => this.stubs.spaceAdd(this.require(port), flowId, stub, options));
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
    return this.exclusive(async () => this.stubs.spaceDelete(this.require(port), flowId));
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
    const options = this.policy.rendering(render);
    const full = options.replayable || (options.compat === 'mountebank' && options.removeProxies);
    return this.list().map((imposter) => (full ? renderImposter(imposter, options) : renderSummary(imposter, options)));
  }

  render(port: number, render: RenderOptions): Record<string, unknown> {
    return renderImposter(this.require(port), this.policy.rendering(render));
  }

  /** `render` as the admin API writes it (JSON.stringify with two-space indent) in UTF-8 chunks, built from the stubs' kept text. */
  renderText(port: number, render: RenderOptions): readonly Uint8Array[] {
    return renderImposterText(this.require(port), this.policy.rendering(render));
  }

  /** The replayable form as the data directory keeps it, as if the imposter's stubs were `stubs` (an edit not yet applied). */
  private durableText(port: number, stubs?: readonly LiveStub[]): readonly Uint8Array[] {
    const imposter = this.require(port);
    const options = this.policy.rendering({ replayable: true, baseUrl: '' });
    if (options.compat !== 'mountebank') return replayableText(imposter, stubs ?? imposter.stubs);
    const text = () => [Buffer.from(JSON.stringify(renderImposter(imposter, options), null, 2))];
    return stubs === undefined ? text() : imposter.renderingStubs(stubs, text);
  }

  /** Tears everything down (process shutdown). */
  async close(): Promise<void> {
    // The fleet first: its feed must not start imposters again while they stop (they stay in the fleet).
    await this.options.fleet?.close();
    await this.writes.queued(() => Promise.all(this.list().map((imposter) => this.running.stop(imposter))));
    await this.running.closeScripts();
    await this.runtime?.close();
  }
}

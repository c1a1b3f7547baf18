import { isDeepStrictEqual } from 'node:util';
import { errorEntries, errors, isSvcError, SvcError, type ErrorEntry, errorText } from '../model/index.js';
import { silentLogger, type Logger } from '../log/index.js';
import { flowStateOf, NoopFlowStore, type FlowStore } from '../state/index.js';
import { checkBindable } from '../transport/index.js';
import type { ImposterDefinition } from '../validate/index.js';
import type { Durability } from './durability.js';
import type { SharedImposter } from './fleet-replica.js';
import { Imposter } from './imposter.js';
import { ObserverSet } from './observer.js';
import type { ApplyOptions, ApplyReport, ParseOptions } from './options.js';
import { tlsOf, type RunningImposters } from './running-imposters.js';
import { reuseStubs, withStubIds } from './stub-reuse.js';

/**
 * An imposter header as reconcile compares it: `recordRequests: false` is the default, so it equals
 * absence (replayable JSON spells it out); likewise `tls`, the https settings in effect, so a saved
 * config that spells out the default pair compares equal to one that left it out.
 */
function comparableHeader(config: Record<string, unknown>, tls: Record<string, unknown> | undefined): Record<string, unknown> {
  return { ...config, ...tls, recordRequests: config.recordRequests === true };
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

export interface ReconcilerDeps {
  running: RunningImposters;
  durability: Durability;
  observers: ObserverSet;
  log: Logger;
  parse: (body: unknown, options: ParseOptions) => ImposterDefinition;
}

/**
 * Brings the running set to a wanted one (PUT /imposters, startup, reload, a fleet's shared config):
 * absent deleted, changed replaced (or stub-patched when only stubs differ), unchanged kept with their
 * journal and cycling state. Callers run it inside the write queue.
 */
export class Reconciler {
  private readonly running: RunningImposters;
  private readonly durability: Durability;
  private readonly observers: ObserverSet;

  constructor(private readonly deps: ReconcilerDeps) {
    this.running = deps.running;
    this.durability = deps.durability;
    this.observers = deps.observers;
  }

  /** POST /imposters: started, made durable (a refused write stops it again), then announced. */
  async create(definition: ImposterDefinition): Promise<Imposter> {
    const imposter = await this.running.start(definition);
    await this.durability.persistOrUndo(imposter.port, () => this.running.stop(imposter));
    this.observers.onLifecycle('created', imposter.port);
    return imposter;
  }

  /** DELETE /imposters: every imposter the data directory lets go is stopped; `render` gives their snapshots. */
  async deleteAll(render: (imposter: Imposter) => Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
    const kept: ErrorEntry[] = [];
    const doomed = this.running.list().filter((imposter) => {
      const refused = this.durability.refusesDelete(imposter.port);
      if (refused) kept.push(...(isSvcError(refused) ? refused.entries : [errorEntries.badData(refused.message)]));
      return !refused;
    });
    const snapshots = doomed.map(render);
    await Promise.all(doomed.map((imposter) => this.running.stop(imposter)));
    if (kept.length === 0) {
      this.observers.onLifecycle('allDeleted', null);
      return snapshots;
    }
    for (const imposter of doomed) this.observers.onLifecycle('deleted', imposter.port);
    throw new SvcError(503, kept);
  }

  /** The bodies of a whole set validated (ids are given in reconcile, where identical running stubs lend theirs); a port twice is a 400. */
  definitionsOf(bodies: unknown, options: ApplyOptions): ImposterDefinition[] {
    if (!Array.isArray(bodies)) throw errors.badData("'imposters' must be an array");
    const scriptBases = options.scriptBases ?? [];
    const definitions = bodies.map((body, i) => this.deps.parse(body, { trusted: options.trusted, generateIds: false, scriptBase: scriptBases[i] }));
    const seen = new Set<number>();
    for (const d of definitions) {
      if (d.port === 0) continue;
      if (seen.has(d.port)) throw errors.badData(`duplicate port ${d.port} in imposters`);
      seen.add(d.port);
    }
    return definitions;
  }

  /** Sets one port to a fleet's shared config, or deletes it (undefined). */
  async applyShared(port: number, shared: SharedImposter | undefined): Promise<void> {
    const current = this.running.get(port);
    if (!shared) {
      if (!current) return;
      // The fleet deleted it: this node follows even if its data directory cannot drop the file.
      const refused = this.durability.refusesDelete(port);
      if (refused) this.deps.log.warn(`imposter ${port}: deleted by the fleet, but ${refused.message}`);
      await this.running.stop(current);
      this.observers.onLifecycle('deleted', port);
      return;
    }
    // This node's own injection policy applies: a scripted config it does not admit is not run here.
    const definition = this.deps.parse(shared.config, { generateIds: false });
    const report: ApplyReport = { created: [], replaced: [], stubPatched: [], deleted: [], unchanged: [], failed: [] };
    const imposter = await this.reconcileOne(withStubIds(definition, current, false), report, true);
    const failed = report.failed[0];
    if (failed) throw new Error(failed.error);
    if (imposter) imposter.enabled = shared.enabled;
  }

  /**
   * What applying the set could fail on that can be known before the first change (docs/imposters.md: a
   * validation failure is a 400 with the running set unchanged): every imposter compiles, its TLS
   * material loads, and a port it needs is not held by another process.
   */
  async preflight(definitions: ImposterDefinition[]): Promise<void> {
    const problems: ErrorEntry[] = [];
    for (const definition of definitions) {
      try {
        new Imposter({
          definition,
          port: definition.port,
          log: silentLogger,
          observers: new ObserverSet(),
          scriptHost: this.running.scripts,
          flowStore: new NoopFlowStore(),
        });
      } catch (err) {
        problems.push(errorEntries.badData(`imposter on port ${definition.port} cannot be built: ${errorText(err)}`));
        continue;
      }
      const held = this.running.has(definition.port);
      try {
        await checkBindable(this.running.listenerOptions(definition, definition.port), !held);
      } catch (err) {
        const error = this.running.bindError(err, definition.port, definition);
        problems.push(...(isSvcError(error) ? error.entries : [errorEntries.badData(error.message)]));
      }
    }
    if (problems.length > 0) throw errors.validation(problems);
  }

  async reconcile(definitions: ImposterDefinition[], generateIds: boolean, persist: boolean): Promise<{ report: ApplyReport; imposters: Imposter[] }> {
    const report: ApplyReport = { created: [], replaced: [], stubPatched: [], deleted: [], unchanged: [], failed: [] };
    const explicit = definitions.filter((d) => d.port !== 0);
    const wanted = new Set(explicit.map((d) => d.port));
    for (const imposter of this.running.list()) {
      if (wanted.has(imposter.port)) continue;
      const refused = this.durability.refusesDelete(imposter.port);
      if (refused) {
        report.failed.push({ port: imposter.port, error: refused.message });
        continue;
      }
      await this.running.stop(imposter);
      report.deleted.push(imposter.port);
      this.observers.onLifecycle('deleted', imposter.port);
    }
    const result: Imposter[] = [];
    for (const definition of explicit) {
      try {
        const imposter = await this.reconcileOne(withStubIds(definition, this.running.get(definition.port), generateIds), report, persist);
        if (imposter) result.push(imposter);
      } catch (err) {
        report.failed.push({ port: definition.port, error: errorText(err) });
      }
    }
    for (const definition of definitions.filter((d) => d.port === 0)) {
      try {
        const imposter = await this.running.start(withStubIds(definition, undefined, generateIds));
        if (persist) await this.durability.persistOrUndo(imposter.port, () => this.running.stop(imposter));
        report.created.push(imposter.port);
        this.observers.onLifecycle('created', imposter.port);
        result.push(imposter);
      } catch (err) {
        report.failed.push({ port: 0, error: errorText(err) });
      }
    }
    return { report, imposters: result.sort((a, b) => a.port - b.port) };
  }

  /** Undefined when a replacement failed and the replaced imposter could not be started again (reported). */
  private async reconcileOne(definition: ImposterDefinition, report: ApplyReport, persist: boolean): Promise<Imposter | undefined> {
    const current = this.running.get(definition.port);
    if (!current) {
      const created = await this.running.start(definition);
      if (persist) await this.durability.persistOrUndo(created.port, () => this.running.stop(created));
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
      const stubs = reuseStubs(current, definition.stubs);
      if (persist) this.durability.persistStubs(current, stubs);
      current.setStubs(stubs);
      report.stubPatched.push(current.port);
      this.observers.onLifecycle('stubsChanged', current.port);
      return current;
    }
    // An unchanged _svc.flowState keeps its store, so flow state survives the replacement (docs/flow-state.md).
    const carried =
      current.flowStore.backend !== 'noop' && isDeepStrictEqual(flowStateOf(current.config), flowStateOf(definition.config)) ? current.flowStore : undefined;
    await this.running.stop(current, carried !== undefined);
    let replaced: Imposter;
    try {
      replaced = await this.running.start(definition, carried);
    } catch (err) {
      return this.restore(current, err as Error, report);
    }
    if (persist) {
      try {
        this.durability.persist(replaced.port);
      } catch (err) {
        // The file still holds the old imposter: run that again (docs/flow-state.md state kept only with its store).
        await this.running.stop(replaced, carried !== undefined);
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
      const restored = await this.running.start(definitionOf(previous), carried);
      report.failed.push({ port: previous.port, error: failure.message, restored: true });
      this.observers.onLifecycle('replaced', restored.port);
      return restored;
    } catch (err) {
      this.deps.log.error(`imposter ${previous.port}: replacement failed (${failure.message}) and the previous one could not be restarted: ${errorText(err)}`);
      report.failed.push({ port: previous.port, error: failure.message, restored: false });
      report.deleted.push(previous.port);
      this.observers.onLifecycle('deleted', previous.port);
      return undefined;
    }
  }
}

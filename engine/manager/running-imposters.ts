import { constants as osConstants } from 'node:os';
import { errors, isSvcError, type ListenFailure, errorText } from '../model/index.js';
import type { ImposterDefinition } from '../validate/index.js';
import {
  createListener,
  defaultKeyPair,
  isHttp2Disabled,
  weakCertificateReasons,
  type BodyBudget,
  type Listener,
  type ListenerOptions,
  type RequestHandler,
} from '../transport/index.js';
import { openRemoteFlowStore, type FlowStore } from '../state/index.js';
import type { PerCoreRuntime, PlanSource } from '../runtime/index.js';
import { createJsScriptHost, type JsScriptHost } from '../script/js/index.js';
import { SvcScriptRunner } from '../script/svc/index.js';
import { Imposter } from './imposter.js';
import { fleetRecorder } from './fleet-recorder.js';
import type { ProxyRecorder, StubStore } from '../respond/index.js';
import { tlsMetadata } from './imposter-json.js';
import type { ObserverSet } from './observer.js';
import type { ManagerOptions } from './options.js';
import { PortAllocator } from './port-allocator.js';

export const DEFAULT_MAX_BODY = 64 * 1024 * 1024;

/** The https settings an imposter config yields (undefined for http); the default pair only when needed. */
export async function tlsOf(definition: ImposterDefinition): Promise<Record<string, unknown> | undefined> {
  if (definition.protocol !== 'https') return undefined;
  const { key, cert } = definition.config;
  const fallback = typeof key === 'string' && typeof cert === 'string' ? undefined : await defaultKeyPair();
  return tlsMetadata(definition.config, fallback);
}

function isPemList(value: unknown): value is string | string[] {
  return typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
}

/** What a running imposter needs besides its definition: shared by every imposter the manager starts. */
export interface RunningImpostersDeps {
  options: Readonly<ManagerOptions>;
  observers: ObserverSet;
  bodyBudget: BodyBudget;
  runtime: PerCoreRuntime | undefined;
  /** Proxy recordings change stubs while serving: the manager makes them durable. */
  persistRecorded: (port: number) => void;
  /** A fleet: runs a proxy recording's stub change as a shared write (WriteQueue.recording). */
  shareRecording: (work: () => Promise<boolean>) => Promise<boolean>;
}

/** The running imposters by port: how one is bound (port, listener, flow store, scripts) and stopped. */
export class RunningImposters {
  private readonly imposters = new Map<number, Imposter>();
  private readonly ports = new PortAllocator();
  /** The JavaScript sandbox shared by all imposters (worker threads), started by the first script. */
  private scriptHost: JsScriptHost | undefined;
  readonly scripts = (): JsScriptHost =>
    (this.scriptHost ??= createJsScriptHost({ log: this.options.log, links: this.deps.runtime?.links, storeOf: this.storeOf }));
  /** Where `ctx.state` of a script an engine thread ran goes: the imposter's store (this thread owns it). */
  private readonly storeOf = (port: number) => this.imposters.get(port)?.flowStore;
  /** The `_svc.script` workers, started by the first script run. */
  private svcRunner: SvcScriptRunner | undefined;
  private readonly svcScripts = (): SvcScriptRunner =>
    (this.svcRunner ??= new SvcScriptRunner({
      log: (level, message) => this.options.log[level](`svc::script ${message}`),
      javascript: this.scripts,
      // Per-core: engine threads reach the script workers directly.
      links: this.deps.runtime?.links,
      storeOf: this.storeOf,
    }));
  private readonly options: Readonly<ManagerOptions>;
  private readonly observers: ObserverSet;

  constructor(private readonly deps: RunningImpostersDeps) {
    this.options = deps.options;
    this.observers = deps.observers;
  }

  list(): Imposter[] {
    return [...this.imposters.values()].sort((a, b) => a.port - b.port);
  }

  get(port: number): Imposter | undefined {
    return this.imposters.get(port);
  }

  has(port: number): boolean {
    return this.imposters.has(port);
  }

  /**
   * Binds a listener as the transport does; under per-core every engine thread accepts on it too, and
   * answers from `source`'s plan when it has one (else forwards to `handler`).
   */
  listen(options: ListenerOptions, handler: RequestHandler, source?: PlanSource): Promise<Listener> {
    return this.deps.runtime ? this.deps.runtime.listen(options, handler, source) : createListener(options, handler);
  }

  listenerOptions(definition: ImposterDefinition, port: number): ListenerOptions {
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
      bodyBudget: this.deps.bodyBudget,
      allowConnection: this.options.allowConnection,
      events: {
        accepted: (slot = 0) => this.observers.onConnection(port, slot),
        acceptFailed: (error) => this.observers.onAcceptError(port, error),
      },
    };
  }

  /** A fleet's proxyOnce recordings are made once fleet-wide (fleetRecorder); undefined: straight into the stubs. */
  private fleetRecorder(port: number): ((stubs: StubStore) => ProxyRecorder) | undefined {
    const claims = this.options.fleet?.recordingClaims?.(port);
    if (!claims) return undefined;
    const { log } = this.options;
    return (stubs) => fleetRecorder(stubs, { claims, share: this.deps.shareRecording, log, port });
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
      sharedState: this.deps.runtime !== undefined,
      threads: this.deps.runtime?.workers,
      persistRecorded: () => this.deps.persistRecorded(port),
      journal: this.options.fleet?.journalOf?.(port),
      recorder: this.fleetRecorder(port),
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
  async start(definition: ImposterDefinition, carried?: FlowStore): Promise<Imposter> {
    let store = carried;
    if (!store) {
      try {
        store =
          (await openRemoteFlowStore(definition.config, this.observers))
          ?? (await this.options.fleet?.flowStoreOf?.(
            definition.port,
            definition.config,
            definition.stubs.map((stub) => stub.config),
          ));
      } catch (err) {
        throw errors.badData(`cannot use _svc.flowState: ${errorText(err)}`);
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

  bindError(err: unknown, port: number, definition?: ImposterDefinition): Error {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') return errors.portInUse(port, definition && this.listenFailure(definition, err as NodeJS.ErrnoException));
    if (code === 'EACCES') return errors.insufficientAccess();
    if (isSvcError(err)) return err;
    return errors.badData(`cannot start imposter on port ${port}: ${errorText(err)}`);
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

  /** `keepFlowStore`: the store passes to the imposter replacing this one (its flow state survives). */
  async stop(imposter: Imposter, keepFlowStore = false): Promise<void> {
    this.imposters.delete(imposter.port);
    // A replaced or re-created imposter starts with fresh script state, as in mountebank.
    this.scriptHost?.forget(imposter.port);
    await imposter.listener?.close();
    if (!keepFlowStore)
      await imposter.flowStore.close().catch((err: unknown) => this.options.log.warn(`imposter ${imposter.port}: closing its flow store: ${errorText(err)}`));
    this.observers.onListenerClosed(imposter.port);
    this.options.log.info(`${imposter.protocol}:${imposter.port} Ciao for now`);
  }

  /** Stops the script workers (process shutdown, after every imposter stopped). */
  async closeScripts(): Promise<void> {
    await this.scriptHost?.close();
    this.scriptHost = undefined;
    await this.svcRunner?.close();
    this.svcRunner = undefined;
  }
}

import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { FrontDoorRoutes, startFrontDoor, type FrontDoor } from '../admin/front-door/index.js';
import type { AdminSettings } from '../admin/index.js';
import type { CliOptions } from './process/index.js';
import { ConfigSources, DataDirStore, type StartupSummary } from '../engine/config/index.js';
import { createLogger, type Logger } from '../engine/log/index.js';
import { ImposterManager } from '../engine/manager/index.js';
import { RedisFleet } from '../engine/fleet/index.js';
import { errorText, StartupFailure } from '../engine/model/index.js';
import { defaultWorkers } from '../engine/runtime/index.js';
import { connectionFilter, DEFAULT_TIMEOUTS } from '../engine/transport/index.js';
import { watchAcceptLoop } from './accept-loop.js';
import { PlaneLifecycle } from './lifecycle.js';
import type { SocketAddr } from './listen-addr.js';
import { servePlanes, type RunningPlanes } from './planes.js';

export interface RunningServer {
  /** The log the server writes to (the builder's, or one made from the CLI options). */
  readonly log: Logger;
  readonly manager: ImposterManager;
  adminAddr(): SocketAddr;
  /** undefined when the metrics server is not running (its port was busy). */
  metricsAddr(): SocketAddr | undefined;
  /** Resolves once the server has shut down; rejects when the admin accept loop broke. */
  join(): Promise<void>;
  /** Like `join`, callable many times: the accept-loop error goes to the first caller, later calls resolve. */
  wait(): Promise<void>;
  /** Graceful: front door, imposters (a manager the builder made), metrics, then the admin plane. */
  shutdown(): Promise<void>;
}

function settingsOf(options: CliOptions, version: string): AdminSettings {
  return {
    version,
    port: options.port,
    host: options.host,
    apiKey: options.apiKey,
    localOnly: options.localOnly,
    ipWhitelist: options.ipWhitelist,
    metricsPort: options.metricsPort ?? 9090,
    configFile: options.configFile,
    noParse: options.noParse,
    requireAdminAuth: options.requireAdminAuth,
    rcFile: options.rcFile,
    datadir: options.datadir,
    scriptsDir: options.scriptsDir,
    runtime: options.runtime,
  };
}

/** `--fleet`: the node's fleet link; its id defaults to the host name and admin address. */
function fleetOf(options: CliOptions, log: Logger): RedisFleet | undefined {
  if (options.fleet === undefined) return undefined;
  const address = `${options.host ?? hostname()}:${options.port}`;
  const nodeId = options.nodeId ?? (options.host === undefined ? `${hostname()}:${options.port}` : `${hostname()}/${address}`);
  return new RedisFleet({ url: options.fleet, prefix: options.fleetPrefix, nodeId, address, log });
}

function logSummary(log: Logger, options: CliOptions, summary: StartupSummary): void {
  if (options.configFile) log.info(`loaded ${summary.fromConfigFile} imposter(s) from ${options.configFile}`);
  if (!options.datadir) return;
  log.info(`loaded ${summary.fromDataDir} imposter(s) from data directory ${options.datadir}`);
  if (summary.skipped.length === 0) return;
  log.warn(`data directory: skipped ${summary.skipped.length} file(s), left untouched:`);
  for (const skipped of summary.skipped) log.warn(`  ${skipped.file}: ${skipped.reason}`);
}

/**
 * The whole server (docs/embedding.md `ServerBuilder`): imposter manager, startup sources (`--configfile`,
 * `--datadir`), front door, admin plane and metrics server, as `svc start` runs them.
 */
export class ServerBuilder {
  private injected: ImposterManager | undefined;
  private log: Logger | undefined;
  private versionText = '0.0.0-embedded';

  private constructor(private readonly options: CliOptions) {}

  static fromCli(options: CliOptions): ServerBuilder {
    return new ServerBuilder(options);
  }

  /** Serve this manager (custom flow-store or journal backends) instead of one made from the options; it stays the caller's on shutdown. */
  manager(manager: ImposterManager): this {
    this.injected = manager;
    return this;
  }

  logger(log: Logger): this {
    this.log = log;
    return this;
  }

  /** Reported by `/config` and the event stream. */
  version(version: string): this {
    this.versionText = version;
    return this;
  }

  /** Serves until shutdown (resolves) or until the admin accept loop breaks (rejects). */
  async run(): Promise<void> {
    await (await this.start()).join();
  }

  /** Loads the startup sources and binds every listener; throws a StartupFailure naming what failed. */
  async start(): Promise<RunningServer> {
    const options = this.options;
    const log = this.log ?? createLogger({ level: options.logLevel, quiet: options.logQuiet, file: options.noLogFile ? undefined : options.logFile });
    // --localOnly binds like the default (every interface, so IPv6 loopback clients reach it too) and
    // refuses non-loopback peers per connection, as mountebank does.
    const host = options.host;
    let store: DataDirStore | undefined;
    try {
      store = options.datadir ? new DataDirStore(resolve(options.datadir), log) : undefined;
    } catch (err) {
      throw new StartupFailure(`cannot use data directory ${options.datadir}: ${errorText(err)}`);
    }
    const allowConnection = connectionFilter(options.localOnly, options.ipWhitelist, (address) =>
      log.warn(`Blocking incoming connection from ${address}. Turn off --localOnly or add to --ipWhitelist to allow`),
    );
    const fleet = this.injected === undefined ? fleetOf(options, log) : undefined;
    const manager =
      this.injected
      ?? new ImposterManager({
        allowInjection: options.allowInjection,
        scriptsDir: options.scriptsDir,
        recordAllRequests: options.mock,
        debugMatches: options.debug,
        compat: options.compat,
        host,
        log,
        allowConnection,
        persistence: store,
        fleet,
        // Given explicitly (flag, SVC_RUNTIME, rcfile), it wins; absent, the manager reads SVC_RUNTIME.
        runtime:
          options.runtime === undefined
            ? undefined
            : { mode: options.runtime, workers: options.runtime === 'per-core' ? (options.workers ?? defaultWorkers()) : 1 },
        maxBufferedBodyBytes: options.maxBufferedBodyBytes,
        timeouts: {
          keepAliveMs: options.keepAliveTimeout ?? DEFAULT_TIMEOUTS.keepAliveMs,
          headersMs: options.headersTimeout ?? DEFAULT_TIMEOUTS.headersMs,
          requestMs: options.requestTimeout ?? DEFAULT_TIMEOUTS.requestMs,
        },
      });
    const owned = this.injected === undefined;
    if (!owned && store && !manager.installPersistence(store)) {
      throw new StartupFailure('--datadir needs a manager without its own persistence hooks');
    }
    const closeOwned = async () => {
      if (owned) await manager.close();
    };
    try {
      // Before any source loads or any port answers: the node serves the fleet's set from its first request.
      await manager.joinFleet();
    } catch (err) {
      await closeOwned();
      throw new StartupFailure(`--fleet: ${errorText(err)}`);
    }
    store?.attach(manager);
    const routes = new FrontDoorRoutes();
    const sources = new ConfigSources(manager, { configFile: options.configFile, noParse: options.noParse, store, routes });
    try {
      // Without a source there is nothing to load (and an injected manager's imposters stay as they are).
      if (sources.hasSource) logSummary(log, options, await sources.loadAtStartup());
    } catch (err) {
      await closeOwned();
      throw new StartupFailure(`cannot start: ${errorText(err)}`);
    }
    let frontDoor: FrontDoor | undefined;
    if (options.frontDoor !== undefined) {
      try {
        frontDoor = await startFrontDoor({ manager, address: options.frontDoor, routes });
      } catch (err) {
        await closeOwned();
        throw new StartupFailure(`cannot start the front door on ${options.frontDoor}: ${errorText(err)}`);
      }
      log.info(`front door listening on ${frontDoor.address} with ${routes.current.size} route(s)`);
    } else if (routes.current.size > 0) {
      log.warn(`${options.configFile}: ${routes.current.size} front-door route(s) loaded, but no --front-door listener serves them`);
    }

    const settings: AdminSettings = { ...settingsOf(options, this.versionText), frontDoor: frontDoor?.address };
    const metricsPort = options.metricsPort ?? 9090;
    // The metrics plane is svc's own: under --localOnly it stays on loopback.
    const metricsHost = host ?? (options.localOnly ? '127.0.0.1' : undefined);
    let planes: RunningPlanes;
    try {
      planes = await servePlanes({
        manager,
        log,
        settings,
        reloader: sources,
        allowConnection,
        adminPort: options.port,
        adminHost: host,
        metricsPort,
        metricsHost,
      });
    } catch (err) {
      await frontDoor?.close();
      await closeOwned();
      throw new StartupFailure(`cannot bind admin port ${options.port}: ${errorText(err)}`);
    }
    // The metrics plane is optional: a busy metrics port is logged, it never stops the server.
    if (planes.metricsError !== undefined) log.error(`cannot bind metrics port ${metricsPort}: ${errorText(planes.metricsError)}`);

    const lifecycle = new PlaneLifecycle();
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        await frontDoor?.close();
        await closeOwned();
        await planes.close();
      })();
      return stopping;
    };
    watchAcceptLoop(planes.admin.server, lifecycle, stop);
    const addr = (port: number, bound: string | undefined): SocketAddr => ({ host: bound ?? '::', port });
    const metrics = planes.metrics;
    return {
      log,
      manager,
      adminAddr: () => addr(planes.admin.port, host),
      metricsAddr: () => (metrics === undefined ? undefined : addr(metrics.port, metricsHost)),
      join: () => lifecycle.wait(),
      wait: () => lifecycle.wait(),
      async shutdown() {
        await stop();
        lifecycle.finish();
      },
    };
  }
}

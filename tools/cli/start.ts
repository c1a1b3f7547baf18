import { resolve } from 'node:path';
import { createLogger, type Logger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { connectionFilter } from '../../engine/transport/index.js';
import { isSvcError } from '../../engine/model/index.js';
import { ConfigSources, DataDirStore, StartupError, type StartupSummary } from '../../engine/config/index.js';
import { createAdminServer, listenAdmin, startMetricsServer, type AdminSettings } from '../../admin/index.js';
import { FrontDoorRoutes, startFrontDoor, type FrontDoor } from '../../admin/front-door/index.js';
import type { CliOptions } from './options.js';
import { removeOwnPidFile, writePidFile } from './pidfile.js';
import { VERSION } from './version.js';

function describe(err: unknown): string {
  if (isSvcError(err)) return err.entries.map((e) => e.message).join('; ');
  return err instanceof Error ? err.message : String(err);
}

function settingsOf(options: CliOptions, host: string | undefined): AdminSettings {
  return {
    version: VERSION,
    port: options.port,
    host,
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

function logSummary(log: Logger, options: CliOptions, summary: StartupSummary): void {
  if (options.configFile) log.info(`loaded ${summary.fromConfigFile} imposter(s) from ${options.configFile}`);
  if (!options.datadir) return;
  log.info(`loaded ${summary.fromDataDir} imposter(s) from data directory ${options.datadir}`);
  if (summary.skipped.length === 0) return;
  log.warn(`data directory: skipped ${summary.skipped.length} file(s), left untouched:`);
  for (const skipped of summary.skipped) log.warn(`  ${skipped.file}: ${skipped.reason}`);
}

/** `svc start`: loads the startup sources, then serves until SIGINT/SIGTERM; returns undefined while serving. */
export async function startCommand(options: CliOptions): Promise<number | undefined> {
  const log = createLogger({ level: options.logLevel, quiet: options.logQuiet, file: options.noLogFile ? undefined : options.logFile });
  for (const warning of options.warnings) log.warn(warning);
  for (const operand of options.positionals) log.warn(`unexpected argument '${operand}' ignored`);
  if (options.runtime === 'per-core') log.warn('--runtime per-core: this build accepts connections on one event loop');
  // --localOnly binds like the default (every interface, so IPv6 loopback clients reach it too) and
  // refuses non-loopback peers per connection, as mountebank does.
  const host = options.host;

  let store: DataDirStore | undefined;
  try {
    store = options.datadir ? new DataDirStore(resolve(options.datadir), log) : undefined;
  } catch (err) {
    log.error(`cannot use data directory ${options.datadir}: ${describe(err)}`);
    return 1;
  }
  const allowConnection = connectionFilter(options.localOnly, options.ipWhitelist, (address) =>
    log.warn(`Blocking incoming connection from ${address}. Turn off --localOnly or add to --ipWhitelist to allow`));
  const manager = new ImposterManager({
    allowInjection: options.allowInjection,
    scriptsDir: options.scriptsDir,
    recordAllRequests: options.mock,
    debugMatches: options.debug,
    host,
    log,
    allowConnection,
    beforeDelete: store && ((port) => store?.beforeDelete(port)),
  });
  store?.attach(manager);
  const routes = new FrontDoorRoutes();
  const sources = new ConfigSources(manager, { configFile: options.configFile, noParse: options.noParse, store, routes });
  try {
    logSummary(log, options, await sources.loadAtStartup());
  } catch (err) {
    log.error(err instanceof StartupError ? `cannot start: ${err.message}` : `cannot start: ${describe(err)}`);
    await manager.close();
    return 1;
  }
  let frontDoor: FrontDoor | undefined;
  if (options.frontDoor !== undefined) {
    try {
      frontDoor = await startFrontDoor({ manager, address: options.frontDoor, routes });
    } catch (err) {
      log.error(`cannot start the front door on ${options.frontDoor}: ${describe(err)}`);
      await manager.close();
      return 1;
    }
    log.info(`front door listening on ${frontDoor.address} with ${routes.current.size} route(s)`);
  } else if (routes.current.size > 0) {
    log.warn(`${options.configFile}: ${routes.current.size} front-door route(s) loaded, but no --front-door listener serves them`);
  }

  const settings: AdminSettings = { ...settingsOf(options, host), frontDoor: frontDoor?.address };
  const server = createAdminServer({ manager, log, settings, reloader: sources, allowConnection });
  let admin;
  try {
    admin = await listenAdmin(server, options.port, host);
  } catch (err) {
    log.error(`cannot bind admin port ${options.port}: ${describe(err)}`);
    await frontDoor?.close();
    await manager.close();
    return 1;
  }
  // The metrics plane is optional: a busy metrics port is logged, it never stops the server.
  const metricsPort = options.metricsPort ?? 9090;
  // The metrics plane is svc's own: under --localOnly it stays on loopback.
  const metricsHost = host ?? (options.localOnly ? '127.0.0.1' : undefined);
  const metrics = await startMetricsServer({ port: metricsPort, host: metricsHost, manager, admin: server })
    .catch((err: unknown) => { log.error(`cannot bind metrics port ${metricsPort}: ${describe(err)}`); });
  // Written only once serving: tooling waits for this file to know the server is ready. A read-only
  // working directory must not stop a server that is already up.
  try {
    writePidFile(options.pidFile);
  } catch (err) {
    log.error(`cannot write pidfile ${options.pidFile}: ${describe(err)}`);
  }
  log.info(`svc v${VERSION} now taking orders - point your browser to http://localhost:${admin.port}/ for help`);

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    log.info('Adios - see you soon?');
    try {
      await frontDoor?.close();
      await manager.close();
      await metrics?.close();
      await admin.close();
    } finally {
      removeOwnPidFile(options.pidFile);
      process.exit(0);
    }
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  return undefined;
}

import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { isObject, isSvcError } from '../../engine/model/index.js';
import { createAdminServer, listenAdmin, startMetricsServer } from '../../admin/index.js';
import { parseStartOptions, UsageError, type StartOptions } from './options.js';
import { VERSION } from './version.js';

/** Imposters of a `--configfile`: `{imposters: [...]}` or a bare array. */
function configImposters(path: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  const doc: unknown = JSON.parse(text);
  if (Array.isArray(doc)) return doc;
  if (isObject(doc) && Array.isArray(doc.imposters)) return doc.imposters;
  if (isObject(doc)) return [doc];
  throw new Error(`${path}: expected {"imposters": [...]}`);
}

function describe(err: unknown): string {
  if (isSvcError(err)) return err.entries.map((e) => e.message).join('; ');
  return err instanceof Error ? err.message : String(err);
}

/** `svc start`: serves until SIGINT/SIGTERM; returns undefined while serving. */
export async function startCommand(argv: string[]): Promise<number | undefined> {
  let options: StartOptions;
  try {
    options = parseStartOptions(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`svc: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const log = createLogger({ level: options.logLevel, file: options.logFile });
  for (const warning of options.warnings) log.warn(warning);
  const host = options.host ?? (options.localOnly ? '127.0.0.1' : undefined);
  const manager = new ImposterManager({ allowInjection: options.allowInjection, host, log });
  const server = createAdminServer({
    manager,
    log,
    settings: {
      version: VERSION,
      port: options.port,
      host,
      apiKey: options.apiKey,
      localOnly: options.localOnly,
      ipWhitelist: options.ipWhitelist,
      metricsPort: options.metricsPort,
      configFile: options.configFile,
      noParse: options.noParse,
      requireAdminAuth: options.requireAdminAuth,
    },
  });
  let admin;
  try {
    admin = await listenAdmin(server, options.port, host);
  } catch (err) {
    log.error(`cannot bind admin port ${options.port}: ${describe(err)}`);
    return 1;
  }
  if (options.configFile) {
    try {
      const { report } = await manager.applyAll(configImposters(options.configFile), false);
      for (const failure of report.failed) log.error(`configfile imposter ${failure.port}: ${failure.error}`);
      if (report.failed.length > 0) throw new Error('some imposters in the config file failed to start');
    } catch (err) {
      log.error(`cannot load ${options.configFile}: ${describe(err)}`);
      await manager.close();
      await admin.close();
      return 1;
    }
  }
  // The metrics plane is optional: a busy metrics port is logged, it never stops the server.
  const metricsPort = options.metricsPort ?? 9090;
  const metrics = await startMetricsServer({ port: metricsPort, host, manager, admin: server })
    .catch((err: unknown) => { log.error(`cannot bind metrics port ${metricsPort}: ${describe(err)}`); });
  if (options.pidFile) writeFileSync(options.pidFile, String(process.pid));
  log.info(`svc v${VERSION} now taking orders - point your browser to http://localhost:${admin.port}/ for help`);

  const shutdown = async () => {
    log.info('Adios - see you soon?');
    await manager.close();
    await metrics?.close();
    await admin.close();
    if (options.pidFile) rmSync(options.pidFile, { force: true });
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return undefined;
}

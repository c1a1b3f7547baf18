/**
 * The serving path of `svc start` assembled in-process (manager, data directory store, config sources,
 * admin plane), so data-directory and reload behaviour is tested through the admin HTTP port without a spawn.
 */
import { createAdminServer, listenAdmin } from '../../admin/index.js';
import { ConfigSources, DataDirStore, type StartupSummary } from '../../engine/config/index.js';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { adminCaller, testAdminSettings } from './in-process.js';
import type { HttpResponse } from './servers.js';

export interface Harness {
  adminPort: number;
  summary: StartupSummary;
  admin(method: string, path: string, body?: unknown): Promise<HttpResponse & { json: any }>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  configFile?: string;
  datadir?: string;
  allowInjection?: boolean;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const log = createLogger({ level: 'error', quiet: true });
  const store = options.datadir ? new DataDirStore(options.datadir, log) : undefined;
  const manager = new ImposterManager({
    allowInjection: options.allowInjection ?? false,
    log,
    persistence: store,
  });
  store?.attach(manager);
  const sources = new ConfigSources(manager, { configFile: options.configFile, noParse: false, store });
  let summary: StartupSummary;
  try {
    summary = await sources.loadAtStartup();
  } catch (err) {
    await manager.close();
    throw err;
  }
  const server = createAdminServer({
    manager,
    log,
    reloader: sources,
    settings: testAdminSettings(),
  });
  const admin = await listenAdmin(server, 0, '127.0.0.1');
  return {
    adminPort: admin.port,
    summary,
    admin: adminCaller(admin.port),
    async stop() {
      await manager.close();
      await admin.close();
    },
  };
}

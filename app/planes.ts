import type { Server } from 'node:http';
import type { Logger } from '../engine/log/index.js';
import type { ImposterManager } from '../engine/manager/index.js';
import {
  createAdminServer,
  listenAdmin,
  startMetricsServer,
  InterceptControl,
  imposterProtocols,
  type AdminServer,
  type AdminServerOptions,
  type AdminSettings,
  type RunningMetrics,
} from '../admin/index.js';

export interface PlanesOptions {
  manager: ImposterManager;
  log: Logger;
  settings: AdminSettings;
  /** The startup sources behind `POST /admin/reload` (absent: reload is a 200 no-op). */
  reloader?: AdminServerOptions['reloader'];
  /** `--localOnly` / `--ipWhitelist`: refused peers are dropped on accept. */
  allowConnection?: AdminServerOptions['allowConnection'];
  /** The `/intercept*` listener slot (absent: the planes own one, stopped on close; false: no intercept routes). */
  intercept?: AdminServerOptions['intercept'];
  /** 0 asks the OS for a port. */
  adminPort: number;
  adminHost?: string;
  /** Absent: no metrics server. */
  metricsPort?: number;
  metricsHost?: string;
}

export interface RunningPlanes {
  admin: AdminServer;
  /** Absent when not asked for, or when its port could not be bound (then `metricsError` says why). */
  metrics?: RunningMetrics;
  metricsError?: unknown;
  /** Stops the metrics server, then the admin plane (the manager is the caller's). */
  close(): Promise<void>;
}

/**
 * The admin plane (and the metrics server when a port is given) over one manager: the startup code
 * the CLI, the embedding API and the C ABI share. A busy admin port throws; a busy metrics port is
 * reported in `metricsError` and leaves the admin plane serving (the CLI only logs it).
 */
export async function servePlanes(options: PlanesOptions): Promise<RunningPlanes> {
  // Made here rather than by the admin plane so the metrics server can watch the proxy listener too.
  const intercept = options.intercept ?? new InterceptControl({ log: options.log, protocolOf: imposterProtocols(options.manager) });
  const server: Server = createAdminServer({
    manager: options.manager,
    log: options.log,
    settings: options.settings,
    reloader: options.reloader,
    allowConnection: options.allowConnection,
    intercept,
  });
  const admin = await listenAdmin(server, options.adminPort, options.adminHost);
  // What `/config` reports and links fall back to: the port actually bound (port 0 asks the OS).
  options.settings.port = admin.port;
  let metrics: RunningMetrics | undefined;
  let metricsError: unknown;
  if (options.metricsPort !== undefined) {
    try {
      metrics = await startMetricsServer({
        port: options.metricsPort,
        host: options.metricsHost,
        manager: options.manager,
        admin: server,
        intercept: intercept || undefined,
      });
    } catch (err) {
      metricsError = err;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    admin,
    metrics,
    metricsError,
    close() {
      closing ??= (async () => {
        await metrics?.close();
        await admin.close();
        if (options.intercept === undefined && intercept) await intercept.stop();
      })();
      return closing;
    },
  };
}

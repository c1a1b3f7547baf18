import type { ImposterManager } from '../../engine/manager/index.js';
import type { Logger } from '../../engine/log/index.js';
import {
  createAdminServer, listenAdmin, startMetricsServer,
  type AdminServer, type AdminServerOptions, type AdminSettings, type RunningMetrics,
} from '../../admin/index.js';

export interface PlanesOptions {
  manager: ImposterManager;
  log: Logger;
  settings: AdminSettings;
  reloader?: AdminServerOptions['reloader'];
  allowConnection?: AdminServerOptions['allowConnection'];
  adminPort: number;
  adminHost?: string;
  /** Omitted: no metrics plane. */
  metricsPort?: number;
  metricsHost?: string;
}

export interface RunningPlanes {
  admin: AdminServer;
  metrics?: RunningMetrics;
  /** Why the metrics plane is not running although a port was asked for (the admin plane serves on). */
  metricsError?: unknown;
}

/**
 * The admin plane, then the optional metrics plane, as `svc start` serves them (also used by the C
 * ABI's svc_serve_admin). A failed admin bind rejects; a failed metrics bind is reported, not thrown.
 */
export async function servePlanes(options: PlanesOptions): Promise<RunningPlanes> {
  const { manager, log, settings, reloader, allowConnection } = options;
  const server = createAdminServer({ manager, log, settings, reloader, allowConnection });
  const admin = await listenAdmin(server, options.adminPort, options.adminHost);
  if (options.metricsPort === undefined) return { admin };
  try {
    const metrics = await startMetricsServer({ port: options.metricsPort, host: options.metricsHost, manager, admin: server });
    return { admin, metrics };
  } catch (metricsError) {
    return { admin, metricsError };
  }
}

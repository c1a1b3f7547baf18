import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ImposterManager } from '../../engine/manager/index.js';
import type { InterceptControl } from '../intercept/index.js';
import { errors, errorText } from '../../engine/model/index.js';
import { acceptH2c, answerClientErrorsWithEnvelope, sendError } from '../http/index.js';
import { SvcMetrics } from './svc-metrics.js';

export interface MetricsServerOptions {
  /** 0 asks the OS for a free port. */
  port: number;
  host?: string;
  manager: ImposterManager;
  /** The admin plane's server, so its accept errors are counted under `listener="admin"`. */
  admin?: Server;
  /** The intercept slot, so its proxy listener's accept errors are counted under `listener="proxy"`. */
  intercept?: InterceptControl;
}

export interface RunningMetrics {
  readonly port: number;
  /** The listening server (embedding hosts watch its accept loop). */
  readonly server: Server;
  readonly metrics: SvcMetrics;
  /** Stops observing the engine, unbinds the port and drops open connections. */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The metrics plane: `GET /metrics` in Prometheus text format on its own port (docs/metrics-and-events.md). */
export async function startMetricsServer(options: MetricsServerOptions): Promise<RunningMetrics> {
  const metrics = new SvcMetrics();
  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      sendError(response, errors.notFoundRoute(`${request.method} ${path}`));
      return;
    }
    // Per-core: requests engine threads answered themselves reach the tally before it is read.
    options.manager.runtime?.collect();
    metrics.exposition().then(
      (text) => {
        response.writeHead(200, { 'Content-Type': metrics.contentType, 'Content-Length': Buffer.byteLength(text) });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => sendError(response, errors.internal(`metrics collection failed: ${errorText(err)}`)),
    );
  };
  const server = createServer({ keepAliveTimeout: 5000 }, onRequest);
  acceptH2c(server, onRequest);
  answerClientErrorsWithEnvelope(server);
  await listen(server, options.port, options.host);
  const detachSelf = metrics.watchServer(server, 'metrics');
  const detachAdmin = options.admin ? metrics.watchServer(options.admin, 'admin') : undefined;
  const detachProxy = options.intercept?.watchListener((proxy) => metrics.watchServer(proxy, 'proxy'));
  const unobserve = options.manager.observe(metrics);
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    server,
    metrics,
    close() {
      closing ??= new Promise<void>((resolve) => {
        unobserve();
        detachAdmin?.();
        detachProxy?.();
        detachSelf();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

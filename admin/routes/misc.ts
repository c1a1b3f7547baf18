import type { ImposterManager } from '../../engine/manager/index.js';
import type { Logger } from '../../engine/log/index.js';
import { type Router, type AdminSettings, negotiated } from '../http/index.js';
import { errors } from '../../engine/model/index.js';

export function miscRoutes(router: Router, manager: ImposterManager, settings: AdminSettings, log: Logger): void {
  router.on('GET', '/', (req) => ({
    status: 200,
    headers: negotiated,
    body: {
      _links: {
        imposters: { href: `${req.baseUrl}/imposters` },
        config: { href: `${req.baseUrl}/config` },
        logs: { href: `${req.baseUrl}/logs` },
      },
    },
  }));

  // The fleet's nodes (issue 20); a server outside a fleet has none to list.
  router.on('GET', '/fleet', async () => {
    const fleet = manager.options.fleet;
    if (!fleet) throw errors.noSuchResource('this server is not in a fleet (svc start --fleet)');
    return { status: 200, headers: negotiated, body: await fleet.status() };
  });

  router.on('GET', '/health', () => ({ status: 200, body: { status: 'ok' } }));

  router.on('GET', '/config', () => {
    const memory = process.memoryUsage();
    return {
      status: 200,
      headers: negotiated,
      body: {
        version: settings.version,
        commit: null,
        options: {
          port: settings.port,
          allowInjection: manager.allowInjection,
          localOnly: settings.localOnly,
          ipWhitelist: settings.ipWhitelist,
        },
        serveOptions: {
          host: settings.host ?? null,
          port: settings.port,
          apiKey: settings.apiKey === undefined ? null : '<redacted>',
          metricsPort: settings.metricsPort ?? null,
          configFile: settings.configFile ?? null,
          noParse: settings.noParse,
          config: settings.rcFile ?? null,
          allowInjection: manager.allowInjection,
          requireAdminAuth: settings.requireAdminAuth,
          frontDoor: settings.frontDoor ?? null,
          upstreamCaFile: null,
          upstreamCaPem: null,
          upstreamTlsSkipVerify: false,
        },
        process: {
          nodeVersion: process.version,
          architecture: process.arch,
          platform: process.platform,
          rss: memory.rss,
          heapTotal: memory.heapTotal,
          heapUsed: memory.heapUsed,
          uptime: process.uptime(),
          cwd: process.cwd(),
        },
      },
    };
  });

  router.on('GET', '/logs', (req) => {
    const all = log.recent();
    const start = Number(req.query.get('startIndex') ?? 0) || 0;
    const end = req.query.get('endIndex') === null ? all.length - 1 : Number(req.query.get('endIndex'));
    return { status: 200, headers: negotiated, body: { logs: all.slice(start, end + 1) } };
  });

  router.on('GET', '/metrics', () => {
    const lines = [
      '# HELP svc_imposters_total Number of imposters.',
      '# TYPE svc_imposters_total gauge',
      `svc_imposters_total ${manager.list().length}`,
      '# HELP svc_imposter_requests_total Requests received per imposter.',
      '# TYPE svc_imposter_requests_total counter',
      ...manager.list().map((i) => `svc_imposter_requests_total{port="${i.port}"} ${i.numberOfRequests}`),
    ];
    return { status: 200, headers: { 'Content-Type': 'text/plain; version=0.0.4' }, text: lines.join('\n') + '\n' };
  });
}

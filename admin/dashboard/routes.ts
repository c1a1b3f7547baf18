import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ImposterManager } from '../../engine/manager/index.js';
import { type Router, portParam } from '../http/index.js';
import { ASSET_PREFIX, DashboardAssets, type Asset } from './assets.js';
import { prefersHtml } from './negotiation.js';
import { dashboardApiRoutes } from './routes-api.js';

/** Answered ahead of the key check: `{keyRequired, authorized}` for the key the request carries. */
const ACCESS_PATH = '/_dashboard/api/access';

/** The admin GET routes a browser opens; each answers the one-page app, which routes on the path. */
const PAGES = [/^\/$/, /^\/imposters\/?$/, /^\/imposters\/\d+\/?$/, /^\/config\/?$/, /^\/logs\/?$/, /^\/metrics\/?$/];

function send(response: ServerResponse, asset: Asset, head: boolean): void {
  response.writeHead(200, {
    Vary: 'Accept',
    'Content-Type': asset.contentType,
    'Content-Length': asset.body.length,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  response.end(head ? undefined : asset.body);
}

/**
 * Answers the dashboard's files and, for a browser (`Accept` preferring HTML) on a page route, the
 * page itself; returns false for everything else, which the admin router then answers as before.
 * Runs ahead of the API-key check: the files hold no data, and the page asks for the key itself.
 */
export function dashboardResponder(
  authorized: (request: IncomingMessage) => boolean = () => true,
): (request: IncomingMessage, path: string, response: ServerResponse) => boolean {
  const assets = new DashboardAssets();
  return (request, path, response) => {
    const method = request.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return false;
    if (path === ACCESS_PATH) {
      // Whether the key the page holds (if any) is accepted, asked without a 401 the console would log.
      const body = Buffer.from(JSON.stringify({ keyRequired: !authorized({ headers: {} } as IncomingMessage), authorized: authorized(request) }));
      send(response, { contentType: 'application/json', body }, method === 'HEAD');
      return true;
    }
    if (path.startsWith(ASSET_PREFIX)) {
      const asset = assets.get(path.slice(ASSET_PREFIX.length));
      if (!asset) return false;
      send(response, asset, method === 'HEAD');
      return true;
    }
    if (!PAGES.some((page) => page.test(path)) || !prefersHtml(request.headers.accept)) return false;
    send(response, assets.shell(), method === 'HEAD');
    return true;
  };
}

/**
 * Two reads shaped for the page, so it never downloads the recorded requests twice (it tails them
 * through `savedRequests?since=`): `GET /_dashboard/api/imposters` is the summary list plus each
 * imposter's warning count; `GET /_dashboard/api/imposters/{port}` is the detail without `requests`.
 */
export function dashboardRoutes(router: Router, manager: ImposterManager): void {
  router.on('GET', '/_dashboard/api/imposters', (req) => {
    const warnings = new Map(manager.list().map((imposter) => [imposter.port, imposter.warnings.length]));
    const imposters = manager.renderList({ baseUrl: req.baseUrl }).map((summary) => ({ ...summary, warningCount: warnings.get(summary.port as number) ?? 0 }));
    return { status: 200, body: { imposters } };
  });
  router.on('GET', '/_dashboard/api/imposters/:port', (req) => {
    const { requests: _requests, ...detail } = manager.render(portParam(req), { baseUrl: req.baseUrl });
    return { status: 200, body: detail };
  });
  dashboardApiRoutes(router, manager);
}

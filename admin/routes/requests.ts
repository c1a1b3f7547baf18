import type { ImposterManager, SavedRequestsPage } from '../../engine/manager/index.js';
import { errors } from '../../engine/model/index.js';
import { type AdminReply, type AdminRequest, type Router, jsonBody, negotiated, portParam } from '../http/index.js';

function sinceOf(req: AdminRequest): number | undefined {
  const raw = req.query.get('since');
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw)) throw errors.badData(`'since' must be a non-negative integer, got '${raw}'`);
  return Number(raw);
}

function pageReply(page: SavedRequestsPage): AdminReply {
  // A degraded read (a fleet journal missing records) gives no cursor: docs/recording-and-verify.md.
  const headers: Record<string, string> = page.nextIndex === undefined ? {} : { 'x-svc-next-index': String(page.nextIndex) };
  if (page.truncated) headers['x-svc-truncated'] = 'true';
  return { status: 200, headers, body: page.requests };
}

export function requestRoutes(router: Router, manager: ImposterManager): void {
  for (const name of ['savedRequests', 'requests']) {
    router.on('GET', `/imposters/:port/${name}`, (req) => {
      const page = manager.savedRequests(portParam(req), { since: sinceOf(req), match: req.query.getAll('match') });
      return page instanceof Promise ? page.then(pageReply) : pageReply(page);
    });
    router.on('DELETE', `/imposters/:port/${name}`, async (req) => {
      const port = portParam(req);
      // mountebank 2.9.1 routes DELETE .../requests to its saved-proxy-responses reset.
      if (name === 'requests' && manager.compat === 'mountebank') await manager.clearProxyResponses(port);
      else await manager.clearRequests(port, { match: req.query.getAll('match') });
      return { status: 200, headers: negotiated, body: manager.render(port, { baseUrl: req.baseUrl }) };
    });
  }

  router.on('DELETE', '/imposters/:port/savedProxyResponses', async (req) => {
    const port = portParam(req);
    await manager.clearProxyResponses(port);
    return { status: 200, headers: negotiated, body: manager.render(port, { baseUrl: req.baseUrl }) };
  });

  router.on('POST', '/imposters/:port/verify', async (req) => ({
    status: 200,
    body: await manager.verify(portParam(req), jsonBody(req)),
  }));
}

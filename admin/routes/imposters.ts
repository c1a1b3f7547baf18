import type { ImposterManager } from '../../engine/manager/index.js';
import { errorEntry } from '../../engine/model/index.js';
import { type Router, flag, jsonBody, negotiated, portParam, renderOptions } from '../http/index.js';

export function imposterRoutes(router: Router, manager: ImposterManager): void {
  router.on('GET', '/imposters', (req) => {
    const replayable = flag(req, 'replayable');
    const removeProxies = flag(req, 'removeProxies');
    const list = flag(req, 'list');
    return {
      status: 200,
      headers: negotiated,
      body: { imposters: manager.renderList({ replayable, removeProxies, list, baseUrl: req.baseUrl }) },
    };
  });

  router.on('POST', '/imposters', async (req) => {
    const imposter = await manager.createImposter(jsonBody(req));
    return {
      status: 201,
      headers: { Location: `${req.baseUrl}/imposters/${imposter.port}` },
      body: manager.render(imposter.port, { baseUrl: req.baseUrl }),
    };
  });

  router.on('PUT', '/imposters', async (req) => {
    const { report } = await manager.applyConfig(jsonBody(req));
    if (report.failed.length > 0) {
      return {
        status: 500,
        body: { errors: [errorEntry('apply_failed', 'some imposters failed to apply', { ...report })] },
      };
    }
    return {
      status: 200,
      body: { imposters: manager.renderList({ list: true, baseUrl: req.baseUrl }) },
    };
  });

  router.on('DELETE', '/imposters', async (req) => {
    const snapshots = await manager.deleteAll(renderOptions(req, { replayable: true }));
    return { status: 200, body: { imposters: snapshots } };
  });

  router.on('GET', '/imposters/:port', (req) => ({
    status: 200,
    headers: negotiated,
    json: manager.renderText(portParam(req), renderOptions(req)),
  }));

  router.on('DELETE', '/imposters/:port', async (req) => {
    return { status: 200, body: await manager.deleteImposter(portParam(req), renderOptions(req)) };
  });

  router.on('POST', '/imposters/:port/enable', async (req) => {
    const port = portParam(req);
    await manager.setEnabled(port, { enabled: true });
    return { status: 200, body: { message: `imposter ${port} enabled` } };
  });

  router.on('POST', '/imposters/:port/disable', async (req) => {
    const port = portParam(req);
    await manager.setEnabled(port, { enabled: false });
    return { status: 200, body: { message: `imposter ${port} disabled` } };
  });
}

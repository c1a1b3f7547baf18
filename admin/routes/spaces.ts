import type { ImposterManager } from '../../engine/manager/index.js';
import type { Router } from '../router.js';
import { jsonBody, portParam } from '../request-helpers.js';

/** SPEC §4.7: thin adapters over the manager's space calls. */
export function spaceRoutes(router: Router, manager: ImposterManager): void {
  router.on('POST', '/imposters/:port/spaces/:flowId/stubs', async (req) => {
    const port = portParam(req);
    // An unknown imposter is a 404 before the body is read.
    manager.require(port);
    return { status: 201, body: await manager.spaceAddStub(port, req.params.flowId, jsonBody(req)) };
  });

  router.on('GET', '/imposters/:port/spaces/:flowId/stubs', (req) => ({
    status: 200,
    body: manager.spaceListStubs(portParam(req), req.params.flowId),
  }));

  router.on('GET', '/imposters/:port/spaces/:flowId', async (req) => ({
    status: 200,
    body: await manager.spaceGet(portParam(req), req.params.flowId),
  }));

  router.on('DELETE', '/imposters/:port/spaces/:flowId', async (req) => ({
    status: 200,
    body: await manager.spaceDelete(portParam(req), req.params.flowId),
  }));
}

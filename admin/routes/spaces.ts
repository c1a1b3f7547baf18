import type { ImposterManager } from '../../engine/manager/index.js';
import { type Router, jsonBody, portParam } from '../http/index.js';

/** docs/scenarios-and-spaces.md: thin adapters over the manager's space calls. */
export function spaceRoutes(router: Router, manager: ImposterManager): void {
  router.on('POST', '/imposters/:port/spaces/:flowId/stubs', async (req) => ({
    status: 201,
    body: await manager.spaceAddStub(portParam(req), req.params.flowId, jsonBody(req)),
  }));

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

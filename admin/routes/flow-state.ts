import type { ImposterManager } from '../../engine/manager/index.js';
import { type Router, jsonBody, portParam } from '../http/index.js';

/** docs/flow-state.md (and the svc extension listing a flow's keys): thin adapters over the manager's flow-state calls (404 unknown imposter/key, 503 store down). */
export function flowStateRoutes(router: Router, manager: ImposterManager): void {
  const key = '/admin/imposters/:port/flow-state/:flowId/:key';
  router.on('GET', key, async (req) => ({
    status: 200,
    body: await manager.flowStateGet(portParam(req), req.params.flowId, req.params.key),
  }));
  router.on('PUT', key, async (req) => {
    const port = portParam(req);
    manager.require(port);
    return { status: 200, body: await manager.flowStatePut(port, req.params.flowId, req.params.key, jsonBody(req)) };
  });
  router.on('DELETE', key, async (req) => ({
    status: 200,
    body: await manager.flowStateDelete(portParam(req), req.params.flowId, req.params.key),
  }));
  router.on('GET', '/admin/imposters/:port/flow-state/:flowId', async (req) => ({
    status: 200,
    body: await manager.flowStateList(portParam(req), req.params.flowId),
  }));
  router.on('DELETE', '/admin/imposters/:port/flow-state/:flowId', async (req) => ({
    status: 200,
    body: await manager.flowStateClear(portParam(req), req.params.flowId),
  }));
}

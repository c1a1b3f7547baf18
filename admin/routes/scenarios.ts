import type { ImposterManager } from '../../engine/manager/index.js';
import { errors } from '../../engine/model/index.js';
import { type Router, objectBody, portParam } from '../http/index.js';

/** docs/scenarios-and-spaces.md: thin adapters over the manager's scenario calls. */
export function scenarioRoutes(router: Router, manager: ImposterManager): void {
  router.on('GET', '/imposters/:port/scenarios', async (req) => ({
    status: 200,
    body: await manager.scenarios(portParam(req), req.query.get('flowId') ?? undefined),
  }));

  router.on('PUT', '/imposters/:port/scenarios/:name/state', async (req) => {
    const port = portParam(req);
    manager.require(port);
    return { status: 200, body: await manager.setScenarioState(port, req.params.name, objectBody(req)) };
  });

  router.on('POST', '/imposters/:port/scenarios/reset', async (req) => {
    const port = portParam(req);
    manager.require(port);
    const { flowId } = objectBody(req);
    if (flowId !== undefined && flowId !== null && typeof flowId !== 'string') throw errors.badData("'flowId' must be a string");
    return { status: 200, body: await manager.resetScenarios(port, flowId ?? undefined) };
  });
}

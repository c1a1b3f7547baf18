import type { ImposterManager, StubRef } from '../../engine/manager/index.js';
import { errors, isObject } from '../../engine/model/index.js';
import type { AdminRequest, Router } from '../router.js';
import { jsonBody, objectBody, portParam } from '../request-helpers.js';

function indexRef(req: AdminRequest): StubRef {
  const raw = req.params.index;
  return { index: /^\d+$/.test(raw) ? Number(raw) : -1 };
}

function idRef(req: AdminRequest): StubRef {
  return { id: req.params.id };
}

export function stubRoutes(router: Router, manager: ImposterManager): void {
  const detail = (req: AdminRequest, port: number) => ({ status: 200, body: manager.render(port, { baseUrl: req.baseUrl }) });

  router.on('GET', '/imposters/:port/stubs', (req) => ({
    status: 200,
    body: { stubs: manager.listStubs(portParam(req), req.baseUrl) },
  }));

  router.on('PUT', '/imposters/:port/stubs', (req) => {
    const port = portParam(req);
    manager.require(port);
    const body = objectBody(req);
    if (body.stubs !== undefined && !Array.isArray(body.stubs)) throw errors.badData("'stubs' must be an array");
    manager.replaceStubs(port, body.stubs);
    return detail(req, port);
  });

  router.on('POST', '/imposters/:port/stubs', (req) => {
    const port = portParam(req);
    manager.require(port);
    const body = objectBody(req);
    manager.addStub(port, body.stub, body.index === undefined ? undefined : (body.index as number));
    return detail(req, port);
  });

  for (const [pattern, ref] of [['/imposters/:port/stubs/by-id/:id', idRef], ['/imposters/:port/stubs/:index', indexRef]] as const) {
    const byId = ref === idRef;
    router.on('GET', pattern, (req) => ({
      status: 200,
      body: manager.getStub(portParam(req), ref(req), byId ? undefined : req.baseUrl),
    }));
    router.on('PUT', pattern, (req) => {
      const port = portParam(req);
      manager.require(port);
      const stub = jsonBody(req);
      if (!isObject(stub)) throw errors.badData('stub must be a JSON object');
      manager.updateStub(port, ref(req), stub);
      return detail(req, port);
    });
    router.on('DELETE', pattern, (req) => {
      const port = portParam(req);
      manager.deleteStub(port, ref(req));
      return detail(req, port);
    });
  }
}

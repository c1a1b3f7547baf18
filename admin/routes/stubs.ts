import type { ImposterManager, StubRef } from '../../engine/manager/index.js';
import { type AdminRequest, type Router, jsonBody, objectBody, portParam } from '../http/index.js';

function indexRef(req: AdminRequest): StubRef {
  const raw = req.params.index;
  return { index: /^\d+$/.test(raw) ? Number(raw) : -1 };
}

function idRef(req: AdminRequest): StubRef {
  return { id: req.params.id };
}

/**
 * docs/imposters.md: thin adapters over the manager's stub calls, which hold every check. The imposter is looked
 * up inside the manager's queue, never here: a lookup while a replacement runs would answer 404.
 */
export function stubRoutes(router: Router, manager: ImposterManager): void {
  const detail = (req: AdminRequest, port: number) => ({ status: 200, json: manager.renderText(port, { baseUrl: req.baseUrl }) });

  router.on('GET', '/imposters/:port/stubs', (req) => ({
    status: 200,
    body: { stubs: manager.listStubs(portParam(req), { baseUrl: req.baseUrl }) },
  }));

  router.on('PUT', '/imposters/:port/stubs', async (req) => {
    const port = portParam(req);
    await manager.replaceStubs(port, jsonBody(req));
    return detail(req, port);
  });

  router.on('POST', '/imposters/:port/stubs', async (req) => {
    const port = portParam(req);
    const body = objectBody(req);
    await manager.addStub(port, body.stub, { index: body.index });
    return detail(req, port);
  });

  for (const [pattern, ref] of [
    ['/imposters/:port/stubs/by-id/:id', idRef],
    ['/imposters/:port/stubs/:index', indexRef],
  ] as const) {
    const byId = ref === idRef;
    router.on('GET', pattern, (req) => ({
      status: 200,
      body: manager.getStub(portParam(req), ref(req), { baseUrl: byId ? undefined : req.baseUrl }),
    }));
    router.on('PUT', pattern, async (req) => {
      const port = portParam(req);
      await manager.updateStub(port, ref(req), jsonBody(req));
      return detail(req, port);
    });
    router.on('DELETE', pattern, async (req) => {
      const port = portParam(req);
      await manager.deleteStub(port, ref(req));
      return detail(req, port);
    });
  }
}

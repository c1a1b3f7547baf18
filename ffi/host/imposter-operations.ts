import { errors, isObject } from '../../engine/model/index.js';
import { VERSION } from '../../engine/version/index.js';
import { flag, integer, json, jsonObject, options, port, stubRef, type Argument } from './arguments.js';
import type { HostContext, Operations } from './operations.js';

/** No base URL on this surface: the admin JSON minus its `_links` (top level and per stub). */
function withoutLinks(value: Record<string, unknown>): Record<string, unknown> {
  const { _links: _ignored, ...rest } = value;
  if (Array.isArray(rest.stubs)) {
    rest.stubs = rest.stubs.map((stub) => (isObject(stub) ? withoutLinks(stub) : stub));
  }
  return rest;
}

const NO_BASE = { baseUrl: '' };

function renderFlags(args: Argument[], at: number): { replayable: boolean; removeProxies: boolean } {
  const source = options(args, at, 'options_json');
  return { replayable: flag(source, 'replayable'), removeProxies: flag(source, 'removeProxies') };
}

/** PUT /imposters/{port}/stubs takes `{stubs: [...]}`; a bare array is accepted too. */
function stubsOf(body: unknown): unknown {
  if (Array.isArray(body)) return body;
  if (!isObject(body)) throw errors.badData('request body must be a JSON object');
  if (body.stubs !== undefined && !Array.isArray(body.stubs)) throw errors.badData("'stubs' must be an array");
  return body.stubs;
}

/**
 * Imposters, stubs, recorded requests and the admin plane: each the manager call its admin route
 * makes (SPEC §4.15 rule 5). Mutating calls run trusted: the C ABI is not injection-gated.
 */
export function imposterOperations({ manager, policy, admin }: HostContext): Operations {
  const trusted = <T>(work: () => T): T => policy.trusted(work);
  return {
    hello: () => VERSION,

    create_imposter: async (args) => (await trusted(() => manager.createImposter(json(args, 0, 'json')))).port,
    replace_stubs: (args) => {
      const at = port(args);
      manager.require(at);
      const stubs = stubsOf(json(args, 1, 'json'));
      trusted(() => manager.replaceStubs(at, stubs));
      return 0;
    },
    delete_imposter: async (args) => {
      await manager.deleteImposter(port(args), NO_BASE);
      return 0;
    },
    delete_all: async () => {
      await manager.deleteAll({ ...NO_BASE, replayable: true });
      return 0;
    },
    recorded: (args) => JSON.stringify(manager.savedRequests(port(args), {}).requests),
    verify: async (args) => JSON.stringify(await manager.verify(port(args), jsonObject(args, 1, 'body_json'), false)),
    stub_warnings: (args) => JSON.stringify(manager.require(port(args)).warnings),
    apply_config: async (args) => {
      const body = jsonObject(args, 0, 'json');
      if (!('imposters' in body)) throw errors.badData("'imposters' is a required field");
      const { report } = await trusted(() => manager.applyAll(body.imposters));
      return JSON.stringify(report);
    },

    list_imposters: (args) => JSON.stringify({ imposters: manager.renderList({ ...NO_BASE, ...renderFlags(args, 0) }).map(withoutLinks) }),
    get_imposter: (args) => JSON.stringify(withoutLinks(manager.render(port(args), { ...NO_BASE, ...renderFlags(args, 1) }))),
    add_stub: (args) => {
      const at = port(args);
      const stub = json(args, 1, 'stub_json');
      const index = integer(args, 2, 'index');
      trusted(() => manager.addStub(at, stub, index < 0 ? undefined : index, false));
      return 0;
    },
    get_stub: (args) => JSON.stringify(manager.getStub(port(args), stubRef(args, 1))),
    update_stub: (args) => {
      const at = port(args);
      manager.require(at);
      const ref = stubRef(args, 1);
      const stub = jsonObject(args, 2, 'stub_json');
      trusted(() => manager.updateStub(at, ref, stub));
      return 0;
    },
    delete_stub: (args) => {
      manager.deleteStub(port(args), stubRef(args, 1));
      return 0;
    },
    clear_recorded: (args) => {
      manager.clearRequests(port(args));
      return 0;
    },
    clear_proxy_recordings: (args) => {
      manager.clearProxyResponses(port(args));
      return 0;
    },
    set_imposter_enabled: (args) => {
      manager.setEnabled(port(args), integer(args, 1, 'enabled') !== 0);
      return 0;
    },

    serve_admin: async (args) => JSON.stringify(await admin.serve(args[0] === null ? null : json(args, 0, 'options_json'))),
  };
}

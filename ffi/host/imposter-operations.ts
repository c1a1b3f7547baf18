import { VERSION } from '../../engine/version/index.js';
import { flag, integer, json, options, port, stubRef, type Argument } from './arguments.js';
import { TRUSTED, type HostContext, type Operations } from './operations.js';

function renderFlags(args: Argument[], at: number): { replayable: boolean; removeProxies: boolean } {
  const source = options(args, at, 'options_json');
  return { replayable: flag(source, 'replayable'), removeProxies: flag(source, 'removeProxies') };
}

/** svc_replace_stubs takes the PUT /imposters/{port}/stubs body, or the bare stubs array for short. */
function stubsBody(body: unknown): unknown {
  return Array.isArray(body) ? { stubs: body } : body;
}

/**
 * Imposters, stubs, recorded requests and the admin plane: each the manager call its admin route
 * makes (docs/c-abi.md rule 5), with the checks the manager makes. Mutating calls run trusted: the C ABI
 * is not injection-gated.
 */
export function imposterOperations({ manager, admin }: HostContext): Operations {
  return {
    hello: () => VERSION,

    create_imposter: async (args) => (await manager.createImposter(json(args, 0, 'json'), TRUSTED)).port,
    replace_stubs: async (args) => {
      const at = port(args);
      await manager.replaceStubs(at, stubsBody(json(args, 1, 'json')), TRUSTED);
      return 0;
    },
    delete_imposter: async (args) => {
      await manager.deleteImposter(port(args), {});
      return 0;
    },
    delete_all: async () => {
      await manager.deleteAll({ replayable: true });
      return 0;
    },
    recorded: async (args) => JSON.stringify((await manager.savedRequests(port(args), {})).requests),
    verify: async (args) => JSON.stringify(await manager.verify(port(args), json(args, 1, 'body_json'), TRUSTED)),
    stub_warnings: (args) => JSON.stringify(manager.require(port(args)).warnings),
    apply_config: async (args) => JSON.stringify((await manager.applyConfig(json(args, 0, 'json'), TRUSTED)).report),

    // No base URL on this surface: the admin JSON without `_links`.
    // In a fleet, with every node's records (as the admin reads).
    list_imposters: async (args) => {
      await manager.syncJournals();
      return JSON.stringify({ imposters: manager.renderList(renderFlags(args, 0)) });
    },
    get_imposter: async (args) => {
      const at = port(args);
      await manager.syncJournals(at);
      return JSON.stringify(manager.render(at, renderFlags(args, 1)));
    },
    // NULL stub_json is the admin body without `stub`; a negative index appends; no id is generated (docs/c-abi.md).
    add_stub: async (args) => {
      const at = port(args);
      const stub = args[1] === null ? undefined : json(args, 1, 'stub_json');
      const index = integer(args, 2, 'index');
      await manager.addStub(at, stub, { ...TRUSTED, index: index < 0 ? undefined : index, generateIds: false });
      return 0;
    },
    get_stub: (args) => JSON.stringify(manager.getStub(port(args), stubRef(args, 1))),
    update_stub: async (args) => {
      const at = port(args);
      const ref = stubRef(args, 1);
      await manager.updateStub(at, ref, json(args, 2, 'stub_json'), TRUSTED);
      return 0;
    },
    delete_stub: async (args) => {
      await manager.deleteStub(port(args), stubRef(args, 1));
      return 0;
    },
    clear_recorded: async (args) => {
      await manager.clearRequests(port(args));
      return 0;
    },
    clear_proxy_recordings: async (args) => {
      await manager.clearProxyResponses(port(args));
      return 0;
    },
    set_imposter_enabled: async (args) => {
      await manager.setEnabled(port(args), { enabled: integer(args, 1, 'enabled') !== 0 });
      return 0;
    },

    serve_admin: async (args) => JSON.stringify(await admin.serve(args[0] === null ? null : json(args, 0, 'options_json'))),
  };
}

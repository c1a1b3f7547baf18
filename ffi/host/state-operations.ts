import { optionalText, port, json, jsonObject, text } from './arguments.js';
import { unavailable, type HostContext, type Operations } from './operations.js';

/** Scenarios and spaces (SPEC §4.6, §4.7) over the manager; flow state is not in the manager yet. */
export function stateOperations({ manager, policy }: HostContext): Operations {
  return {
    scenarios: async (args) => JSON.stringify(await manager.scenarios(port(args), optionalText(args, 1))),
    set_scenario_state: async (args) => {
      const at = port(args);
      manager.require(at);
      await manager.setScenarioState(at, text(args, 1, 'name'), jsonObject(args, 2, 'state_json'));
      return 0;
    },
    reset_scenarios: async (args) => {
      const at = port(args);
      manager.require(at);
      await manager.resetScenarios(at, optionalText(args, 1));
      return 0;
    },

    space_add_stub: (args) => {
      const at = port(args);
      manager.require(at);
      const flowId = text(args, 1, 'flow_id');
      const stub = json(args, 2, 'stub_json');
      policy.trusted(() => manager.spaceAddStub(at, flowId, stub));
      return 0;
    },
    space_list_stubs: (args) => JSON.stringify(manager.spaceListStubs(port(args), text(args, 1, 'flow_id'))),
    space_delete: async (args) => {
      await manager.spaceDelete(port(args), text(args, 1, 'flow_id'));
      return 0;
    },
    space_recorded: (args) => JSON.stringify(manager.spaceRecorded(port(args), text(args, 1, 'flow_id'))),

    flow_state_get: unavailable('flow state'),
    flow_state_put: unavailable('flow state'),
    flow_state_delete: unavailable('flow state'),
  };
}

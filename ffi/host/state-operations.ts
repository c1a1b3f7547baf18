import { isSvcError } from '../../engine/model/index.js';
import { optionalText, port, json, jsonObject, text } from './arguments.js';
import { TRUSTED, type HostContext, type Operations } from './operations.js';

/** Scenarios, spaces and flow state (docs/scenarios-and-spaces.md, §4.7, §4.8) over the manager's calls. */
export function stateOperations({ manager }: HostContext): Operations {
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

    space_add_stub: async (args) => {
      await manager.spaceAddStub(port(args), text(args, 1, 'flow_id'), json(args, 2, 'stub_json'), TRUSTED);
      return 0;
    },
    space_list_stubs: (args) => JSON.stringify(manager.spaceListStubs(port(args), text(args, 1, 'flow_id'))),
    space_delete: async (args) => {
      await manager.spaceDelete(port(args), text(args, 1, 'flow_id'));
      return 0;
    },
    space_recorded: (args) => JSON.stringify(manager.spaceRecorded(port(args), text(args, 1, 'flow_id'))),

    // An absent key is an answer here (found: false), not an error: the route's 404 becomes that.
    flow_state_get: async (args) => {
      const at = port(args);
      manager.require(at);
      const flowId = text(args, 1, 'flow_id');
      const key = text(args, 2, 'key');
      try {
        return JSON.stringify({ found: true, ...(await manager.flowStateGet(at, flowId, key)) });
      } catch (err) {
        if (isSvcError(err) && err.status === 404) return JSON.stringify({ found: false, flowId, key, value: null });
        throw err;
      }
    },
    flow_state_put: async (args) => {
      const at = port(args);
      manager.require(at);
      await manager.flowStatePut(at, text(args, 1, 'flow_id'), text(args, 2, 'key'), { value: json(args, 3, 'value_json') });
      return 0;
    },
    flow_state_delete: async (args) => {
      await manager.flowStateDelete(port(args), text(args, 1, 'flow_id'), text(args, 2, 'key'));
      return 0;
    },
  };
}

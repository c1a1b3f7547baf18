export { resolveFlowId, type CasResult, type FlowBackend, type FlowIdSource, type FlowStore } from './flow-store.js';
export {
  DEFAULT_TTL_SECONDS, flowIdSourceFor, flowStateOf, flowStateProblems, flowStateSettings, needsImplicitFlowStore, stubsNeedFlowStore,
  type FlowStateSettings, type RedisSettings,
} from './flow-settings.js';
export { MemoryFlowStore, type MemoryFlowStoreOptions } from './memory-flow-store.js';
export { NoopFlowStore } from './noop-flow-store.js';
export { requestFlowId } from './request-flow-id.js';
export { localFlowStore, warnImplicitFlowStore } from './local-flow-store.js';
export {
  INITIAL_SCENARIO_STATE, readScenarioState, resetScenarioStates, scenarioKey, scenarioStates, writeScenarioState,
} from './scenarios.js';
export { StubGates, type GatedRequest } from './stub-gates.js';
export { scenarioNamesFor, spaceInsertIndex, spaceStub, visibleTo } from './spaces.js';

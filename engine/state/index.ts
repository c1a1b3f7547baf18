export { resolveFlowId, type CasResult, type FlowBackend, type FlowIdSource, type FlowStore } from './flow-store.js';
export {
  DEFAULT_TTL_SECONDS,
  flowIdSourceFor,
  flowStateOf,
  flowStateSettings,
  needsImplicitFlowStore,
  stubsNeedFlowStore,
  type FlowStateSettings,
  type RedisSettings,
} from './flow-settings.js';
export { MemoryFlowStore, type MemoryFlowStoreOptions } from './memory-flow-store.js';
export { NoopFlowStore } from './noop-flow-store.js';
export { headerFlowId, requestFlowId } from './request-flow-id.js';
export { implicitFlowStore, localFlowStore, openRemoteFlowStore } from './open-flow-store.js';
export { RedisFlowStore, type RedisFlowStoreOptions } from './redis-flow-store.js';
export type { FlowStoreMetrics } from './flow-metrics.js';
export { applyStateOps, compileStateOps, type StateOp } from './state-ops.js';
export { resetScenarioStates, scenarioStates, writeScenarioState } from './scenarios.js';
export { FlowStoreUnavailable, StubGates, type GatedRequest } from './stub-gates.js';
export { scenarioNamesFor, spaceInsertIndex, spaceStub } from './spaces.js';
export { MAX_CELLS, MAX_STATES, ScenarioCellView, type ScenarioCellsPlan } from './scenario-cells.js';
export { scenarioKey } from './scenarios.js';

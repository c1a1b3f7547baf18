export { resolveFlowId, type CasResult, type FlowBackend, type FlowIdSource, type FlowStore } from './flow-store.js';

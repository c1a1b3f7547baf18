export type { WireRequest, MockRequest, HeaderMap, HeaderValue, QueryMap } from './request.js';
export { SvcError, errors, errorEntries, isSvcError, type ErrorEntry } from './errors.js';
export { isObject, cloneJson, type Json, type JsonObject } from './json.js';
export { scriptedReasons, predicatesAreScripted, injectionMessages } from './injection.js';
export { toMockRequest, plainRequest } from './mock-request.js';
export {
  flowStateProblems, parseFlowIdSource, stateOpsProblems, STATE_OP_NAMES, type FlowIdSourceSpec, type StateOpName,
} from './flow-state-config.js';
export {
  FLOW_GATE_FIELDS, flowGateProblems, hasFlowGate, newStateOf, requiredStateOf, scenarioNameOf, spaceOf,
} from './scenario-fields.js';
export { stubScripts, scriptSpecOf, isScriptPredicate, type StubScript, type ScriptPlacement } from './script-locations.js';

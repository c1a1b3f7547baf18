export type { WireRequest, MockRequest, HeaderMap, HeaderValue, QueryMap } from './request.js';
export {
  SvcError,
  errors,
  errorEntries,
  errorEntry,
  errorOf,
  errorBody,
  statusOf,
  errorText,
  isSvcError,
  mountebankFormOf,
  type ErrorEntry,
  type ListenFailure,
} from './errors.js';
export { ERROR_CATALOGUE, isErrorSlug, type CatalogueEntry, type ErrorSlug } from './error-catalogue.js';
export { SvcFailure, UsageError, StartupFailure } from './failures.js';
export { compileUserPattern, PatternTimeout, PATTERN_TIME_LIMIT_MS, type UserPattern, type PatternEngine } from './user-pattern.js';
export { isObject, canonicalJson, cloneJson, copyContainers, jsonNestingPath, MAX_JSON_DEPTH, type Json, type JsonObject } from './json.js';
export { repeatedHeaderProblems } from './header-names.js';
export { scriptedReasons, predicatesAreScripted, injectionMessages } from './injection.js';
export { toMockRequest, plainRequest } from './mock-request.js';
export {
  flowStateProblems,
  parseFlowIdSource,
  stateOpsProblems,
  STATE_OP_NAMES,
  type FlowIdSourceSpec,
  type StateOpName,
} from './flow-state-config.js';
export {
  FLOW_GATE_FIELDS,
  flowGateProblems,
  hasFlowGate,
  newStateOf,
  requiredStateOf,
  scenarioNameOf,
  spaceOf,
} from './scenario-fields.js';
export { MAX_REPEAT, MAX_DELAY_MS, MAX_TTL_SECONDS, MAX_POOL_SIZE, MAX_SCRIPTED_BODY_BYTES, isIntegerIn } from './limits.js';
export { stubScripts, scriptSpecOf, isScriptPredicate, type StubScript, type ScriptPlacement } from './script-locations.js';

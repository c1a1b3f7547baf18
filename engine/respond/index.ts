export { prepareResponse, withCorsPreflight, type PreparedResponse, type IsFields } from './is-response.js';
export { newCycleSlot, ResponseCycle } from './response-cycle.js';
export {
  compileResponse,
  compileDefaultResponse,
  responseTypeOf,
  servesFromConfig,
  servesWithScripts,
  type CompiledResponse,
  type ResponseType,
  type ScriptCompileContext,
} from './compile-response.js';
export { stubPredicateScripts, runOrFail, observeScript, ScriptFailure, type SvcScripts, type CompiledScript, type ScriptObserver } from './svc-script.js';
export { applyTransportFault, canonicalFault } from './transport-fault.js';
export { resolveResponse, unknownFault } from './pipeline.js';
export type { ResponseOutcome, ResolveContext, ImposterScope, ImposterScripts } from './outcome.js';
export { scriptFailure } from './inject-response.js';
export { errorResponse, type ErrorResponseOptions } from './error-response.js';
export { faultBlockErrors, faultRandom, sharedFaultDraws, sharedFaultRandom, stubsUseTcpFault, type SharedFaultDraws } from './faults/index.js';
export type { FaultObserver } from './fault-hooks.js';
export {
  isRecordedProxyResponse,
  ownerRecorder,
  recordingFor,
  recordOnce,
  type OnceOutcome,
  type OnceRecording,
  type ProxyMode,
  type ProxyObserver,
  type ProxyRecorder,
  type StubStore,
} from './proxy/index.js';
export { behaviorProblems } from './behaviors/index.js';
export { proxyProblems, weakProxyCertificates } from './proxy/index.js';

export { prepareResponse, withCorsPreflight, type PreparedResponse, type IsFields } from './shared/index.js';
export { newCycleSlot, ResponseCycle } from './response-cycle.js';
export {
  compileResponse,
  compileDefaultResponse,
  responseTypeOf,
  type CompiledResponse,
  type ResponseType,
  type ScriptCompileContext,
} from './compile-response.js';
export { stubPredicateScripts, runOrFail, observeScript, ScriptFailure, type SvcScripts, type CompiledScript, type ScriptObserver } from './shared/index.js';
export { applyTransportFault, canonicalFault } from './shared/index.js';
export { resolveResponse, unknownFault } from './pipeline.js';
export type { ResponseOutcome, ResolveContext, ImposterScope, ImposterScripts } from './shared/index.js';
export { scriptFailure } from './inject-response.js';
export { errorResponse, type ErrorResponseOptions } from './shared/index.js';
export { drawFaultBlock, faultBlockErrors, faultRandom, sharedFaultDraws, sharedFaultRandom, stubsUseTcpFault, type SharedFaultDraws } from './faults/index.js';
export type { FaultObserver } from './shared/index.js';
export {
  isRecordedProxyResponse,
  ownerRecorder,
  recordingFor,
  recordOnce,
  storeRecording,
  type OnceOutcome,
  type OnceRecording,
  type ProxyMode,
  type ProxyObserver,
  type ProxyRecorder,
  type StubStore,
} from './proxy/index.js';
export { behaviorProblems } from './behaviors/index.js';
export { proxyProblems, weakProxyCertificates } from './proxy/index.js';

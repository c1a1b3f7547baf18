/** What every response step shares (the root composes them; behaviors/, faults/ and proxy/ use them): prepared responses and outcomes, error responses, TCP faults and fault hooks, running `_svc.script`. */
export { errorResponse, type ErrorResponseOptions } from './error-response.js';
export type { FaultSource, FaultKind, FaultObserver, FaultRandom } from './fault-hooks.js';
export { prepareResponse, withCorsPreflight, isStaticIs, type PreparedResponse, type IsFields } from './is-response.js';
export type { ResponseOutcome, ImposterScope, ImposterScripts, ResolveContext } from './outcome.js';
export {
  observeScript,
  compileScript,
  scriptRequest,
  runScript,
  scriptFailureResponse,
  ScriptFailure,
  ResetRequested,
  runOrFail,
  httpFields,
  answerOf,
  stubPredicateScripts,
  scriptResponse,
  type SvcScripts,
  type ScriptObserver,
  type CompiledScript,
  type ScriptCall,
  type ScriptAnswer,
} from './svc-script.js';
export { canonicalFault, applyTransportFault } from './transport-fault.js';

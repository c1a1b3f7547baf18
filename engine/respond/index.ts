export { prepareResponse, withCorsPreflight, type PreparedResponse, type IsFields } from './is-response.js';
export { ResponseCycle } from './response-cycle.js';
export { compileResponse, compileDefaultResponse, responseTypeOf, type CompiledResponse, type ResponseType } from './compile-response.js';
export { applyTransportFault, canonicalFault } from './transport-fault.js';
export { resolveResponse, unknownFault } from './pipeline.js';
export type { ResponseOutcome, ResolveContext, ImposterScope } from './outcome.js';
export { faultBlockErrors, faultRandom, stubsUseTcpFault, type FaultObserver } from './faults/index.js';

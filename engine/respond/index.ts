export { prepareResponse, withCorsPreflight, type PreparedResponse, type IsFields } from './is-response.js';
export { ResponseCycle } from './response-cycle.js';
export { compileResponse, compileDefaultResponse, responseTypeOf, type CompiledResponse } from './compile-response.js';
export { applyTransportFault } from './transport-fault.js';

export { applyFaultBlock } from './apply.js';
export { faultBlockErrors } from './validate.js';
export { faultRandom, seededRandom, type FaultRandom } from './random.js';
export type { FaultKind, FaultObserver, FaultSource } from './types.js';
export { stubsUseTcpFault } from './tcp-usage.js';

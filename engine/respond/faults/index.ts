export { applyFaultBlock } from './apply.js';
export { faultBlockErrors } from './validate.js';
export { faultRandom, seededRandom } from './random.js';
export { stubsUseTcpFault } from './tcp-usage.js';

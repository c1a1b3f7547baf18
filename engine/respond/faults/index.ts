export { applyFaultBlock, drawFaultBlock } from './apply.js';
export { faultBlockErrors } from './validate.js';
export { faultRandom, seededRandom, sharedFaultDraws, sharedFaultRandom, type SharedFaultDraws } from './random.js';
export { stubsUseTcpFault } from './tcp-usage.js';

export { PerCoreRuntime, type PlanSource } from './per-core.js';
export type { ObserverEvent, ImposterPlan, ProxyRecording } from './protocol.js';
export { exactBytes } from './intern.js';
export { ThreadCounter } from './thread-counter.js';
export { runFlowCall } from './remote-flow-store.js';
export { defaultWorkers, parseRuntimeMode, parseWorkers, runtimeFromEnv, type RuntimeMode, type RuntimeSettings } from './settings.js';
export { ProxyOwner } from './proxy-owner.js';

export { PerCoreRuntime } from './per-core.js';
export { defaultWorkers, parseRuntimeMode, parseWorkers, runtimeFromEnv, type RuntimeMode, type RuntimeSettings } from './settings.js';

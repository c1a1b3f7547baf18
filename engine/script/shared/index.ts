/** What both script engines (engine/script/js, engine/script/svc) and the CLI's script runner share: the data a script sees, the ctx built from it, state calls from worker threads, worker memory bounds, engine threads' direct links to the workers. */
export { stateHandle, buildCtx, type StateCall, type LogLevel, type CtxInput } from './ctx.js';
export type { Placement, ScriptRequestData, ScriptResponseData, StubInfo, StateOp, StateMessage, StateAnswer } from './protocol.js';
export { StateTimeout, BackendFailure, StateBridge, StateChannel, type StateWiring } from './state-bridge.js';
export { LINK_GRACE_MS, LINK_HELLO, STARTUP_ALLOWANCE_MS, WorkerLinks, type LinkedCall, type LinkReply, type WorkerLinksOptions } from './worker-links.js';
export { SCRIPT_WORKER_LIMITS, REPLACE_GROWTH_BYTES, WorkerFootprint } from './worker-memory.js';

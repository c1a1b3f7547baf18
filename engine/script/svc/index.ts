/**
 * `_svc.script` (docs/scripts.md, §7, §8): specs validated and resolved at the edge (spec.ts,
 * stub-scripts.ts), `routePattern` path parameters, and the runner that executes scripts on worker
 * threads with a synchronous `ctx.state` bridged to the imposter's FlowStore.
 *
 * ```ts
 * const runner = new SvcScriptRunner({ log });
 * const outcome = await runner.run({ source, placement: 'respond', request, flowId, stub: {}, timeoutMs, store });
 * // outcome: { ok: true, result?: ScriptResult, value? } | { ok: false, errorType, message }
 * ```
 */
export { SvcScriptRunner, runJavaScript, type ScriptRun, type ScriptRunner, type SvcScriptRunnerOptions } from './runner.js';
export { LinkedSvcRunner, type LinkedSvcRunnerOptions } from './linked.js';
export type { Placement, RunOutcome, ScriptErrorType, ScriptRequestData, ScriptResponseData, StubInfo } from './protocol.js';
export type { ScriptResult } from './results.js';
export { HttpResult, DelayResult, ResetResult, PassResult, registerResults, jsonText } from './results.js';
export { buildCtx, stateHandle, type StateCall, type StateOp, type LogLevel, type CtxInput } from '../shared/index.js';
export {
  resolveScript,
  scriptEngineNamed,
  scriptEngineOfFile,
  scriptSettingsOf,
  ScriptSpecError,
  type ScriptBase,
  type ScriptSettings,
  type ScriptSource,
  type ScriptEngineName,
} from './spec.js';
export { stubScripts, stubScriptProblems, scriptSpecOf, isScriptPredicate, type StubScript } from './stub-scripts.js';
export { compileRoutePattern, type PathParams } from './route-pattern.js';
export { jsOutcomeOf } from './placement.js';

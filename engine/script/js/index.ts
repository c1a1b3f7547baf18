/**
 * Sandboxed JavaScript for mountebank-style injection (docs/responses.md–2.5, §7, §8): QuickJS
 * (quickjs-emscripten) in worker threads, never node:vm, never the event loop serving traffic.
 *
 * API (stable; other rooms call only this):
 * ```ts
 * const host = createJsScriptHost({ log });                 // one per ImposterManager
 * const request = plainRequest(mockRequest);               // config.request (engine/model), mountebank's shape
 * await host.inject(port, source, request, { timeoutMs });  // → the returned/callback'd response object
 * await host.predicate(port, source, request, { timeoutMs });          // → boolean
 * await host.decorate(port, source, request, response, { timeoutMs }); // → decorated response object
 * await host.wait(port, source, request, { timeoutMs });    // → milliseconds (number, NaN if not numeric)
 * host.forget(port);  // imposter deleted/replaced: drop its sandbox and state
 * await host.close();
 * ```
 * `scope` (the imposter's port) selects the sandbox: `state` persists per imposter across calls
 * and hooks, never shared between imposters. Objects cross the boundary as JSON.
 *
 * Failures: `ScriptTimeoutError` when the deadline (`timeoutMs`, default 5000) passes — the caller
 * is released at the deadline; `ScriptError` (with `kind`: compile, runtime, loop-bound, recursion,
 * memory, host) for everything else. Limits enforced are documented in ./sandbox.ts.
 *
 * Sandbox: no `require`, `process`, `Buffer`, filesystem, network or timers;
 * `logger.debug/info/warn/error` (and `console.log/info/warn/error/debug`) write to the engine log
 * prefixed `svc::script`. Each imposter has its own QuickJS context (globals are not shared).
 */
export { createJsScriptHost, type JsScriptHost, type JsScriptHostOptions } from './host.js';
export { DEFAULT_TIMEOUT_MS, svcFunctionSource, type ScriptCallOptions, type SvcJsCall } from './hook-calls.js';
export { ScriptError, ScriptTimeoutError, type ScriptErrorKind } from './errors.js';
export type { ScriptRequest, ScriptResponse } from './types.js';
export { scriptTimeoutOf } from './timeout.js';
export { LinkedJsHost, type LinkedJsHostOptions } from './linked.js';

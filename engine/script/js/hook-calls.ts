/**
 * How a hook call becomes one run of a sandbox worker, for both hosts: the pool on main (host.ts) and an
 * engine thread's links to it (linked.ts) differ only in where a run goes, so the five calls of
 * JsScriptHost and the run message they build are written once, here.
 */
import type { Placement, ScriptRequestData, ScriptResponseData, StubInfo } from '../shared/index.js';
import type { FlowStore } from '../../state/index.js';
import type { HookKind, RunMessage } from './protocol.js';
import type { ScriptRequest, ScriptResponse } from './types.js';

export const DEFAULT_TIMEOUT_MS = 5000;

export interface ScriptCallOptions {
  /** `_svc.scriptEngine.timeoutMs` (default 5000). */
  timeoutMs?: number;
}

/** A `_svc.script` run with the JavaScript engine (engine/script/svc): `ctx` data and the store `ctx.state` uses. */
export interface SvcJsCall {
  placement: Placement;
  request: ScriptRequestData;
  response?: ScriptResponseData;
  flowId: string;
  stub: StubInfo;
  store: FlowStore;
}

/** What a `_svc.script` run adds to a hook's run: its `ctx` metadata, and the flow store its `ctx.state` reaches. */
export interface SvcRun {
  meta: string;
  store: FlowStore;
}

/**
 * A `_svc.script` source as the function the sandbox compiles once: the script is the body of
 * `function (ctx)`, so a bare script `return`s its result, and an entry point it declares is called.
 * (`delay` is also a global result constructor: only a declaration of the script's own counts.)
 */
export function svcFunctionSource(code: string, placement: Placement): string {
  // A placement is named by its entry point (docs/scripts.md).
  const entry = placement;
  return `function (ctx) {\n${code}\n;return typeof ${entry} === 'function' && ${entry} !== globalThis.${entry} ? ${entry}(ctx) : undefined;\n}`;
}

/** One hook call, as a host runs it. */
export interface HookRun {
  /** The imposter (its port): it picks the sandbox. */
  scope: number;
  kind: HookKind;
  source: string;
  request: ScriptRequest;
  response?: ScriptResponse;
  timeoutMs: number;
  /** `_svc.script` runs only. */
  svc?: SvcRun;
}

/** A run as a sandbox worker reads it (objects cross as JSON text); its deadline is `timeoutMs` from now. */
export function runMessage(id: number, { scope, kind, source, request, response, timeoutMs, svc }: HookRun): RunMessage {
  const message: RunMessage = { id, scope, kind, source, timeoutMs, request: JSON.stringify(request), deadline: Date.now() + timeoutMs };
  if (response !== undefined) message.response = JSON.stringify(response);
  if (svc !== undefined) message.meta = svc.meta;
  return message;
}

/** JsScriptHost's hook calls (documented on JsScriptHost in host.ts), each one `run` of the host. */
export abstract class JsHookCalls {
  protected abstract run(hook: HookRun): Promise<unknown>;

  inject(scope: number, source: string, request: ScriptRequest, options?: ScriptCallOptions): Promise<unknown> {
    return this.run({ scope, kind: 'inject', source, request, timeoutMs: timeoutOf(options) });
  }

  async predicate(scope: number, source: string, request: ScriptRequest, options?: ScriptCallOptions): Promise<boolean> {
    return Boolean(await this.run({ scope, kind: 'predicate', source, request, timeoutMs: timeoutOf(options) }));
  }

  decorate(scope: number, source: string, request: ScriptRequest, response: ScriptResponse, options?: ScriptCallOptions): Promise<unknown> {
    return this.run({ scope, kind: 'decorate', source, request, response, timeoutMs: timeoutOf(options) });
  }

  async wait(scope: number, source: string, request: ScriptRequest, options?: ScriptCallOptions): Promise<number> {
    return Number(await this.run({ scope, kind: 'wait', source, request, timeoutMs: timeoutOf(options) }));
  }

  svc(scope: number, code: string, call: SvcJsCall, options?: ScriptCallOptions): Promise<unknown> {
    const meta = JSON.stringify({ placement: call.placement, flowId: call.flowId, stub: call.stub });
    return this.run({
      scope,
      kind: 'svc',
      source: svcFunctionSource(code, call.placement),
      request: call.request as unknown as ScriptRequest,
      response: call.response as unknown as ScriptResponse | undefined,
      timeoutMs: timeoutOf(options),
      svc: { meta, store: call.store },
    });
  }
}

function timeoutOf(options: ScriptCallOptions | undefined): number {
  return options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
}

/**
 * `_svc.script` behaviors (README "Scripts"): `decorate: {"_svc": {"script": S}}` runs `transform(ctx)`
 * with `ctx.response`; `wait: {"_svc": {"script": S}}` runs `delay(ctx)` and waits that long. A failed
 * decorate follows the decorate row of docs/errors.md (the undecorated response, marked), as every decorate
 * spelling does; a failed wait ends the request with the `_svc.script` row (500 / 504 with the script headers).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  httpFields,
  ResetRequested,
  runOrFail,
  runScript,
  scriptFailureResponse,
  scriptResponse,
  ScriptFailure,
  type CompiledScript,
} from '../shared/index.js';
import { undecorated } from './decorate.js';
import type { BehaviorContext, ResponseFields, StepRunner } from './types.js';

function services(ctx: BehaviorContext): NonNullable<BehaviorContext['svc']> {
  if (!ctx.svc) throw new ScriptFailure(scriptFailureResponse({ ok: false, errorType: 'host', message: '_svc.script is not available here' }));
  return ctx.svc;
}

export function compileSvcDecorate(script: CompiledScript): StepRunner {
  return async (response: ResponseFields, ctx) => {
    const { scripts, ruleId } = services(ctx);
    const outcome = await runScript(script, scripts, { request: ctx.request, response: scriptResponse(response), ruleId });
    if (!outcome.ok) {
      ctx.log(`decorate failed: ${outcome.message}`);
      return undecorated(response, ctx, outcome.errorType === 'timeout');
    }
    const result = outcome.result;
    if (result?.kind === 'http') return httpFields(result);
    if (result?.kind === 'delay') await sleep(result.ms);
    if (result?.kind === 'reset') throw new ResetRequested();
    return response;
  };
}

export function compileSvcWait(script: CompiledScript): StepRunner {
  return async (response: ResponseFields, ctx) => {
    const { scripts, ruleId } = services(ctx);
    const outcome = await runOrFail(script, scripts, { request: ctx.request, ruleId });
    await sleep(Number(outcome.value));
    return response;
  };
}

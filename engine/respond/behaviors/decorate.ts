import { errorText, isObject } from '../../model/index.js';
import { BehaviorError, type BehaviorContext, type ResponseFields, type StepRunner } from './types.js';

/** docs/errors.md: a failed decorate serves the response as it was, marked (and marked as a timeout when it was one). */
export function undecorated(response: ResponseFields, ctx: BehaviorContext, timedOut: boolean): ResponseFields {
  const base = isObject(response.headers) ? response.headers : isObject(ctx.defaultHeaders) ? ctx.defaultHeaders : {};
  const headers: Record<string, unknown> = { ...base, 'x-svc-decorate-error': 'true' };
  if (timedOut) headers['x-svc-script-timeout'] = 'true';
  return { ...response, headers };
}

/** decorate: mountebank's `function (config, response, logger)` post-processing, in the sandbox. */
export function compileDecorate(source: string): StepRunner {
  return async (response: ResponseFields, ctx) => {
    if (!ctx.scripts) return undecorated(response, ctx, false);
    // The response crosses to the sandbox as JSON text and is never mutated here, so no copy is kept for the fallback.
    try {
      return await ctx.scripts.decorate(source, response, ctx);
    } catch (err) {
      if (err instanceof BehaviorError) throw err;
      ctx.log(`decorate failed: ${errorText(err)}`);
      return undecorated(response, ctx, ctx.scripts.isTimeout(err));
    }
  };
}

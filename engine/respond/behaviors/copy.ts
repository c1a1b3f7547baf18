import { compileSelector } from './select.js';
import { indexedTokenRewrite, rewriteStrings } from './replace-tokens.js';
import type { ResponseFields, StepRunner } from './types.js';

/** copy: values cut from a request field replace the `into` token across the response. */
export function compileCopy(config: Record<string, unknown>): StepRunner {
  const select = compileSelector(config.from, config.using as Record<string, unknown>);
  const rewriteFor = indexedTokenRewrite(config.into as string);
  return (response: ResponseFields, ctx) => {
    const rewrite = rewriteFor(select(ctx.requestJson()));
    if (rewrite) rewriteStrings(response, rewrite);
    return response;
  };
}

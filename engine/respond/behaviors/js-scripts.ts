/** The JavaScript behaviors (function wait, decorate) on the imposter's QuickJS sandbox. */
import { isObject } from '../../model/index.js';
import { ScriptError, ScriptTimeoutError, type JsScriptHost } from '../../script/js/index.js';
import { BehaviorError, type BehaviorScripts } from './types.js';

/** The imposter's sandbox access (respond's ImposterScripts). */
export interface SandboxAccess {
  host(): JsScriptHost;
  timeoutMs: number;
}

const byImposter = new WeakMap<SandboxAccess, BehaviorScripts>();

/** One adapter per imposter sandbox, built on first use. */
export function behaviorScriptsOf(access: SandboxAccess, port: number): BehaviorScripts {
  let scripts = byImposter.get(access);
  if (!scripts) {
    scripts = {
      async wait(source, ctx) {
        try {
          return await access.host().wait(port, source, ctx.requestJson(), { timeoutMs: access.timeoutMs });
        } catch (err) {
          // mountebank answers a failing wait function with a 500 `invalid wait injection`.
          if (err instanceof ScriptError || err instanceof ScriptTimeoutError) {
            throw new BehaviorError('invalid_injection', `invalid wait injection: ${err.message}`);
          }
          throw err;
        }
      },
      async decorate(source, response, ctx) {
        let result: unknown;
        try {
          result = await access.host().decorate(port, source, ctx.requestJson(), response, { timeoutMs: access.timeoutMs });
        } catch (err) {
          // Not a failed decorate but a response that cannot be sent: the request fails (docs/errors.md envelope).
          if (err instanceof ScriptError && err.kind === 'too-large') throw new BehaviorError('response_too_large', err.message);
          throw err;
        }
        // A falsy return already came back as the mutated response; mountebank serves any other
        // returned value (a string, a number) as a response without fields, like inject's.
        return isObject(result) ? result : {};
      },
      isTimeout: (err) => err instanceof ScriptTimeoutError,
    };
    byImposter.set(access, scripts);
  }
  return scripts;
}

/** predicateGenerators `{inject}`: the function's returned predicate list (mountebank's `(fn)(config)`). */
export async function injectedPredicates(access: SandboxAccess, port: number, source: string, request: Record<string, unknown>): Promise<unknown[]> {
  let result: unknown;
  try {
    result = await access.host().inject(port, source, request, { timeoutMs: access.timeoutMs });
  } catch (err) {
    if (err instanceof ScriptError || err instanceof ScriptTimeoutError) {
      throw new BehaviorError('invalid_injection', `invalid predicateGenerator injection: ${err.message}`);
    }
    throw err;
  }
  if (!Array.isArray(result))
    throw new BehaviorError('invalid_injection', 'invalid predicateGenerator injection: the function must return an array of predicates');
  return result;
}

import { isObject, MAX_DELAY_MS } from '../../model/index.js';
import { BehaviorError, type ResponseFields, type StepRunner } from './types.js';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * wait: a number (or numeric string: mountebank parseInts it), svc's `{min, max}` range, or a
 * JavaScript function given as a string or as `{inject}` whose result is the delay.
 */
export function compileWait(value: unknown): StepRunner {
  if (isObject(value) && value.inject === undefined) {
    const min = Number(value.min);
    const span = Number(value.max) - min;
    return async (response: ResponseFields) => {
      await sleep(min + Math.floor(Math.random() * (span + 1)));
      return response;
    };
  }
  const fixed = typeof value === 'number' ? value : parseInt(String(value), 10);
  if (!isObject(value) && !Number.isNaN(fixed)) {
    return async (response: ResponseFields) => {
      await sleep(fixed);
      return response;
    };
  }
  const source = String(isObject(value) ? value.inject : value);
  return async (response, ctx) => {
    if (!ctx.scripts) throw new BehaviorError('invalid_injection', 'JavaScript behaviors need the JavaScript engine');
    const ms = await ctx.scripts.wait(source, ctx);
    // A longer timer would fire after 1 ms (node's timer limit), the opposite of what was asked.
    await sleep(Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_DELAY_MS) : 0);
    return response;
  };
}

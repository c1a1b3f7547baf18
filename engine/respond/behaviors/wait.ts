import { isObject, MAX_DELAY_MS } from '../../model/index.js';
import { BehaviorError, type ResponseFields, type StepRunner } from './types.js';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A plain `wait`'s delay: drawn per call, never above `max`. */
export interface PlainDelay {
  draw(): number;
  max: number;
}

/**
 * The delay of a `wait` given as a number (or numeric string: mountebank parseInts it) or as svc's
 * `{min, max}` range; undefined for a JavaScript function (a string or `{inject}`).
 */
export function plainDelay(value: unknown): PlainDelay | undefined {
  if (isObject(value)) {
    if (value.inject !== undefined) return undefined;
    const min = Number(value.min);
    const max = Number(value.max);
    const span = max - min;
    return { draw: () => min + Math.floor(Math.random() * (span + 1)), max };
  }
  const fixed = typeof value === 'number' ? value : parseInt(String(value), 10);
  return Number.isNaN(fixed) ? undefined : { draw: () => fixed, max: fixed };
}

/** wait: a plain delay (plainDelay), or a JavaScript function given as a string or as `{inject}` whose result is the delay. */
export function compileWait(value: unknown): StepRunner {
  const delay = plainDelay(value);
  if (delay) {
    return async (response: ResponseFields) => {
      await sleep(delay.draw());
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

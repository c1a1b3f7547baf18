import { isObject } from '../model/index.js';

function repeatOf(response: Record<string, unknown>): number {
  // The response-level `repeat` wins over the one inside `_behaviors` (SPEC §2.3).
  const behaviors = isObject(response._behaviors) ? response._behaviors : undefined;
  const raw = response.repeat ?? behaviors?.repeat;
  const n = typeof raw === 'string' ? parseInt(raw, 10) : typeof raw === 'number' ? raw : 1;
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/**
 * Cycles through a stub's responses in order, each served `repeat` times, wrapping around
 * (mountebank's stateful response list).
 */
export class ResponseCycle<T> {
  private readonly order: number[] = [];
  private position = 0;

  constructor(readonly responses: T[], configs: Array<Record<string, unknown>>) {
    configs.forEach((config, index) => {
      for (let i = repeatOf(config); i > 0; i -= 1) this.order.push(index);
    });
  }

  /** Index (into the configs) of the response `next()` returns next; the cycle does not move. */
  peek(): number {
    return this.order[this.position];
  }

  next(): T {
    const index = this.order[this.position];
    this.position = this.position + 1 === this.order.length ? 0 : this.position + 1;
    return this.responses[index];
  }

  /** Appends a response (proxy recordings) to the end of the cycle. */
  push(response: T, config: Record<string, unknown>): void {
    this.responses.push(response);
    const index = this.responses.length - 1;
    for (let i = repeatOf(config); i > 0; i -= 1) this.order.push(index);
  }
}

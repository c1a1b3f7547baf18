import { isObject, MAX_REPEAT } from '../model/index.js';

function repeatOf(response: Record<string, unknown>): number {
  // The response-level `repeat` wins over the one inside `_behaviors` (SPEC §2.3).
  const behaviors = isObject(response._behaviors) ? response._behaviors : undefined;
  const raw = response.repeat ?? behaviors?.repeat;
  const n = typeof raw === 'string' ? parseInt(raw, 10) : typeof raw === 'number' ? raw : 1;
  return Number.isInteger(n) && n > 0 ? Math.min(n, MAX_REPEAT) : 1;
}

/** One response of the cycle and how many times in a row it is served. */
interface Run {
  index: number;
  times: number;
}

/**
 * Cycles through a stub's responses in order, each served `repeat` times, wrapping around
 * (mountebank's stateful response list). `repeat` stays a count: memory and time do not grow with it.
 */
export class ResponseCycle<T> {
  private readonly runs: Run[] = [];
  private run = 0;
  /** How many times the current run has been served. */
  private served = 0;

  constructor(readonly responses: T[], configs: Array<Record<string, unknown>>) {
    configs.forEach((config, index) => {
      this.runs.push({ index, times: repeatOf(config) });
    });
  }

  /** Index (into the configs) of the response `next()` returns next; the cycle does not move. */
  peek(): number {
    return this.runs[this.run].index;
  }

  next(): T {
    const current = this.runs[this.run];
    this.served += 1;
    if (this.served === current.times) {
      this.served = 0;
      this.run = this.run + 1 === this.runs.length ? 0 : this.run + 1;
    }
    return this.responses[current.index];
  }

  /** Appends a response (proxy recordings) to the end of the cycle. */
  push(response: T, config: Record<string, unknown>): void {
    this.responses.push(response);
    this.runs.push({ index: this.responses.length - 1, times: repeatOf(config) });
  }
}

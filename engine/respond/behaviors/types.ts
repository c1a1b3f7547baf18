import { SvcFailure, type ErrorSlug, type MockRequest } from '../../model/index.js';
import type { SvcScripts } from '../shared/index.js';

/** A response as behaviors see it: mountebank's response object before the defaultResponse fallback. */
export type ResponseFields = Record<string, unknown>;

/** The JavaScript behaviors (function wait, decorate), run by the script engine in its sandbox. */
export interface BehaviorScripts {
  /** Milliseconds a `wait` function returns. */
  wait(source: string, ctx: BehaviorContext): Promise<number>;
  /** The response a `decorate` function leaves (mutated in place or returned). */
  decorate(source: string, response: ResponseFields, ctx: BehaviorContext): Promise<ResponseFields>;
  /** Whether a rejection of `wait`/`decorate` was the script deadline. */
  isTimeout(error: unknown): boolean;
}

export interface BehaviorContext {
  request: MockRequest;
  /** The request as mountebank shapes it for behaviors (built once per request, shared read-only). */
  requestJson(): Record<string, unknown>;
  port: number;
  /** The imposter's defaultResponse headers: what a response without headers is served with. */
  defaultHeaders: unknown;
  scripts: BehaviorScripts | undefined;
  /** `_svc.script` behaviors: the imposter's script services and the stub's metrics id. */
  svc?: { scripts: SvcScripts; ruleId: string };
  log(message: string): void;
}

/** One compiled behavior: transforms the response (in place or into a new object). */
export type StepRunner = (response: ResponseFields, ctx: BehaviorContext) => ResponseFields | Promise<ResponseFields>;

/** A behavior failure that ends the request with a 500 envelope (mountebank answers 500 too). */
export class BehaviorError extends SvcFailure {
  constructor(
    readonly type: ErrorSlug,
    message: string,
  ) {
    super(message);
  }
}

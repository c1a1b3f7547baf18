/**
 * Result constructors of docs/scripts.md (`http`, `delay`, `reset`, `pass`) as Rhai host types, shared by
 * the serving worker and `svc script eval`.
 */
import type { RhaiEngine } from '../rhai/index.js';

/** A script's answer as it crosses from the worker: plain data, no classes. */
export type ScriptResult =
  | { kind: 'http'; status: number; headers: Array<[string, string]>; body: string | null }
  | { kind: 'delay'; ms: number }
  | { kind: 'reset' }
  | { kind: 'pass' };

/** JSON text of a script value; i64 values beyond 2^53 arrive as bigint and are written as numbers. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}

export class HttpResult {
  readonly headers: Array<[string, string]> = [];
  constructor(
    readonly status: number,
    readonly body: unknown = null,
  ) {}

  header(name: string, value: unknown): this {
    this.headers.push([name, String(value)]);
    return this;
  }

  /** The response as sent: map/array bodies become JSON with a JSON content type unless one is set. */
  toResult(): ScriptResult {
    const headers = [...this.headers];
    let body: string | null;
    if (this.body === null || this.body === undefined) body = null;
    else if (typeof this.body === 'string') body = this.body;
    else if (typeof this.body === 'object') {
      body = jsonText(this.body);
      if (!headers.some(([h]) => h.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'application/json']);
    } else body = String(this.body);
    return { kind: 'http', status: this.status, headers, body };
  }

  toJSON(): { status: number; headers: Record<string, string>; body: string | null } {
    const result = this.toResult() as Extract<ScriptResult, { kind: 'http' }>;
    return { status: result.status, headers: Object.fromEntries(result.headers), body: result.body };
  }
}

export class DelayResult {
  constructor(readonly ms: number) {}
  toJSON(): { delay: number } {
    return { delay: this.ms };
  }
}

export class ResetResult {
  toJSON(): { reset: true } {
    return { reset: true };
  }
}

export class PassResult {
  toJSON(): { pass: true } {
    return { pass: true };
  }
}

/** The result a script value stands for; anything that is not a constructor's result is undefined. */
export function resultOf(value: unknown): ScriptResult | undefined {
  if (value instanceof HttpResult) return value.toResult();
  if (value instanceof DelayResult) return { kind: 'delay', ms: value.ms };
  if (value instanceof ResetResult) return { kind: 'reset' };
  if (value instanceof PassResult) return { kind: 'pass' };
  return undefined;
}

export function checkedStatus(status: unknown): number {
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 999) {
    throw new Error('http(status): status must be an integer from 100 to 999');
  }
  return status;
}

export function checkedDelay(ms: unknown): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new Error('delay(ms): ms must be a non-negative number');
  return ms;
}

export function registerResults(engine: RhaiEngine): void {
  engine.registerFunction('http', (status: unknown, body?: unknown) => new HttpResult(checkedStatus(status), body));
  engine.registerMethod('HttpResult', 'header', (self: HttpResult, name: unknown, value: unknown) => {
    if (typeof name !== 'string') throw new Error('header(name, value): name must be a string');
    return self.header(name, value);
  });
  engine.registerFunction('delay', (ms: unknown) => new DelayResult(checkedDelay(ms)));
  engine.registerFunction('reset', () => new ResetResult());
  engine.registerFunction('pass', () => new PassResult());
}

/**
 * Script result constructors of SPEC §2.7 (`http`, `delay`, `reset`, `pass`) as host types, and how
 * `svc script eval` prints them.
 */
import type { RhaiEngine } from '../../engine/script/rhai/index.js';

export class HttpResult {
  readonly headers: Record<string, string> = {};
  constructor(
    readonly status: number,
    readonly body: unknown = null,
  ) {}

  header(name: string, value: unknown): this {
    this.headers[name] = String(value);
    return this;
  }

  /** The response as it would be sent: map/array bodies become JSON with a JSON content type. */
  toJSON(): { status: number; headers: Record<string, string>; body: string | null } {
    const headers = { ...this.headers };
    let body: string | null;
    if (this.body === null || this.body === undefined) body = null;
    else if (typeof this.body === 'string') body = this.body;
    else if (typeof this.body === 'object') {
      body = JSON.stringify(this.body, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
    } else body = String(this.body);
    return { status: this.status, headers, body };
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

export function registerResults(engine: RhaiEngine): void {
  engine.registerFunction('http', (status: unknown, body?: unknown) => {
    if (typeof status !== 'number' || !Number.isInteger(status)) throw new Error('http(status): status must be an integer');
    return new HttpResult(status, body);
  });
  engine.registerMethod('HttpResult', 'header', (self: HttpResult, name: unknown, value: unknown) => {
    if (typeof name !== 'string') throw new Error('header(name, value): name must be a string');
    return self.header(name, value);
  });
  engine.registerFunction('delay', (ms: unknown) => {
    if (typeof ms !== 'number' || ms < 0) throw new Error('delay(ms): ms must be a non-negative number');
    return new DelayResult(ms);
  });
  engine.registerFunction('reset', () => new ResetResult());
  engine.registerFunction('pass', () => new PassResult());
}

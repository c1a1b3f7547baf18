import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { VerifyStep } from './annotation.js';

/** What one driven request came back with: an answer, or how the connection failed (a TCP fault). */
export type Outcome = { kind: 'answer'; status: number; body: string; elapsedMs: number } | { kind: 'failed'; code: string; elapsedMs: number };

const TIMEOUT_MS = 30_000;

/** Sends one step's request to the imposter on loopback, on its own connection (https: any certificate). */
export function drive(protocol: string, port: number, step: VerifyStep['request']): Promise<Outcome> {
  const request = protocol === 'https' ? httpsRequest : httpRequest;
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, method: step.method, path: step.path, headers: step.headers, agent: false, timeout: TIMEOUT_MS, rejectUnauthorized: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ kind: 'answer', status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), elapsedMs: elapsed() }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ kind: 'failed', code: err.code ?? err.message, elapsedMs: elapsed() }));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ kind: 'failed', code: err.code ?? err.message, elapsedMs: elapsed() }));
    req.end(step.body);
  });
}

/** Why an outcome does not meet a step's expectations, or undefined when it does. */
export function mismatch(outcome: Outcome, expect: VerifyStep['expect']): string | undefined {
  if (outcome.kind === 'failed') return `no answer (${outcome.code})`;
  if (expect.status !== undefined && outcome.status !== expect.status) return `expected status ${expect.status}, got ${outcome.status}`;
  if (expect.bodyEquals !== undefined && outcome.body !== expect.bodyEquals)
    return `expected body ${JSON.stringify(expect.bodyEquals)}, got ${JSON.stringify(preview(outcome.body))}`;
  if (expect.bodyContains !== undefined && !outcome.body.includes(expect.bodyContains)) {
    return `expected body containing ${JSON.stringify(expect.bodyContains)}, got ${JSON.stringify(preview(outcome.body))}`;
  }
  return undefined;
}

function preview(body: string): string {
  return body.length > 200 ? `${body.slice(0, 200)}...` : body;
}

/**
 * A client in a child process while the test's thread (svc's main thread, in process) waits for it
 * synchronously: only an engine thread of the per-core runtime can accept and answer then.
 */
import { execFileSync } from 'node:child_process';

export interface Ask {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  /** base64 */
  body?: string;
  tls?: boolean;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string | string[]>;
  /** base64 */
  body?: string;
  error?: string;
  ms: number;
}

/**
 * Sends `asks` one after another, each on a new connection, from a child process while this thread
 * is blocked; an answer that does not come within 5 s is an error (a forwarded request would wait
 * for this very thread forever).
 */
export function askWhileMainBlocked(port: number, asks: Ask[]): Answer[] {
  const client = `
    const http = require('node:http');
    const https = require('node:https');
    const asks = ${JSON.stringify(asks)};
    const one = (ask) => new Promise((resolve) => {
      const started = Date.now();
      const lib = ask.tls ? https : http;
      const req = lib.request({ host: '127.0.0.1', port: ${port}, path: ask.path || '/', method: ask.method || 'GET', headers: ask.headers || {},
        agent: false, rejectUnauthorized: false, timeout: 5000 }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('base64'), ms: Date.now() - started }));
        res.on('error', (e) => resolve({ error: e.code || e.message, ms: Date.now() - started }));
      });
      req.on('timeout', () => { req.destroy(new Error('timeout')); });
      req.on('error', (e) => resolve({ error: e.code || e.message, ms: Date.now() - started }));
      if (ask.body) req.write(Buffer.from(ask.body, 'base64'));
      req.end();
    });
    (async () => { const out = []; for (const ask of asks) out.push(await one(ask)); process.stdout.write(JSON.stringify(out)); })();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', client], { timeout: 60_000 }).toString()) as Answer[];
}

export const text = (answer: Answer): string => Buffer.from(answer.body ?? '', 'base64').toString();

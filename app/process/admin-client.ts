import { request } from 'node:http';
import type { CliOptions } from './server-options.js';
import { errorText } from '../../engine/model/index.js';

export interface AdminResponse {
  status: number;
  body: string;
}

/** The admin address a client subcommand talks to (a wildcard bind host is reached on loopback). */
export function adminBase(options: Pick<CliOptions, 'host' | 'port'>): string {
  const host = options.host === undefined || options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${options.port}`;
}

/** One admin call with the API key (when configured) in the `Authorization` header. */
export function adminCall(
  options: Pick<CliOptions, 'host' | 'port' | 'apiKey'>,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<AdminResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Connection: 'close' };
    if (options.apiKey !== undefined) headers.Authorization = options.apiKey;
    const text = body === undefined ? undefined : JSON.stringify(body);
    if (text !== undefined) headers['Content-Type'] = 'application/json';
    const req = request(`${adminBase(options)}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer from ${adminBase(options)} within ${timeoutMs / 1000}s`)));
    req.on('error', reject);
    req.end(text);
  });
}

/** A one-line reason for a failed call, naming the server address. */
export function describeFailure(options: Pick<CliOptions, 'host' | 'port'>, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return `no svc process running on ${adminBase(options)}`;
  return errorText(err);
}

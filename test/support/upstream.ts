/**
 * An origin server for proxy tests: node:http or node:https on loopback, answering from a handler,
 * remembering every request it saw and counting TCP connections (keep-alive reuse).
 */
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { defaultKeyPair } from '../../engine/transport/default-cert.js';

export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  rawHeaders: string[];
  body: Buffer;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void;

export interface Upstream {
  port: number;
  origin: string;
  seen: SeenRequest[];
  connections: number;
  handler: Handler;
  stop(): Promise<void>;
}

export async function startUpstream(protocol: 'http' | 'https', handler: Handler): Promise<Upstream> {
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen = { method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
      upstream.seen.push(seen);
      upstream.handler(seen, res);
    });
  };
  const server: Server = protocol === 'https' ? createHttps(await defaultKeyPair(), serve) : createHttp(serve);
  server.keepAliveTimeout = 5000;
  server.on('connection', () => {
    upstream.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const upstream: Upstream = {
    port,
    origin: `${protocol}://127.0.0.1:${port}`,
    seen: [],
    connections: 0,
    handler,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return upstream;
}

/** A JSON answer with a custom header, like most origins the tests stand in for. */
export function jsonHandler(body: unknown, status = 200): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'X-Upstream': 'yes' });
    res.end(JSON.stringify(body));
  };
}

/**
 * How many threads may forward this process's requests, each with its own keep-alive pool: one, or
 * every per-core thread under SVC_RUNTIME=per-core (test:per-core).
 */
export function forwardingThreads(): number {
  if (process.env.SVC_RUNTIME !== 'per-core') return 1;
  return Number(process.env.SVC_WORKERS) || availableParallelism();
}

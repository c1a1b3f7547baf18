/**
 * Shared pieces of the fault tests: an in-process svc with imposter creation, a fixed fault seed,
 * and clients that observe exactly how a connection ended.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import * as assert from 'uvu/assert';
import type { InProcessSvc } from './in-process.js';
import { freePort } from './servers.js';

export type Protocol = 'http' | 'https';

/** Creates an imposter through the admin API and returns its port. */
export async function createImposter(svc: InProcessSvc, protocol: Protocol, stubs: unknown[]): Promise<number> {
  const port = await freePort();
  const res = await svc.admin('POST', '/imposters', { port, protocol, stubs });
  assert.is(res.status, 201, JSON.stringify(res.json));
  return port;
}

/** A stub answering `path` with `response` (an `is` response unless it names another type). */
export function stubAt(path: string, response: Record<string, unknown>): Record<string, unknown> {
  return { predicates: [{ equals: { path } }], responses: [response] };
}

/** Runs `work` with SVC_FAULT_SEED set (imposters read it when created), restoring the previous value. */
export async function withSeed<T>(seed: string, work: () => Promise<T>): Promise<T> {
  const previous = process.env.SVC_FAULT_SEED;
  process.env.SVC_FAULT_SEED = seed;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.SVC_FAULT_SEED;
    else process.env.SVC_FAULT_SEED = previous;
  }
}

export interface ConnectionEnd {
  /** Every byte received (decrypted on https). */
  data: Buffer;
  /** The socket error code, null when the peer closed cleanly (FIN). */
  errorCode: string | null;
}

/** One request on a raw socket (TLS on https); resolves once the server ends the connection. */
export function rawExchange(protocol: Protocol, port: number, path: string, keepAlive = false): Promise<ConnectionEnd> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let errorCode: string | null = null;
    const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${keepAlive ? '' : 'Connection: close\r\n'}\r\n`;
    const socket: net.Socket =
      protocol === 'https'
        ? tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => socket.write(request))
        : net.connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      errorCode = error.code ?? error.message;
    });
    socket.on('close', () => resolve({ data: Buffer.concat(chunks), errorCode }));
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error(`no end of connection from ${protocol}://127.0.0.1:${port}${path}`));
    });
  });
}

export interface ClientResult {
  status?: number;
  body?: string;
  headers?: Record<string, string | string[] | undefined>;
  /** The node:http client's error code when it could not read a response. */
  errorCode?: string;
  elapsedMs: number;
}

/** One request through node's own HTTP client (a real parser), on a fresh connection. */
export function clientRequest(protocol: Protocol, port: number, path: string): Promise<ClientResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const send = protocol === 'https' ? httpsRequest : httpRequest;
    const req = send({ host: '127.0.0.1', port, path, agent: false, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ errorCode: error.code ?? error.message, elapsedMs: performance.now() - started }));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          elapsedMs: performance.now() - started,
        }),
      );
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ errorCode: error.code ?? error.message, elapsedMs: performance.now() - started }));
    req.end();
  });
}

/**
 * Sends `count` pipelined keep-alive requests on one connection and returns the status of each
 * answer in order (responses must carry `Connection: keep-alive`; bodies framed by Content-Length or chunked).
 */
/** Offset just past a chunked body starting at `from`, or -1 while it is incomplete. */
function chunkedEnd(buffer: Buffer, from: number): number {
  let at = from;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd === -1) return -1;
    const size = parseInt(buffer.toString('latin1', at, lineEnd), 16);
    const after = lineEnd + 2 + size + 2;
    if (after > buffer.length) return -1;
    if (size === 0) return after;
    at = after;
  }
}

export function pipelinedStatuses(port: number, path: string, count: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const statuses: number[] = [];
    let buffer: Buffer = Buffer.alloc(0);
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(count));
    });
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      let at = 0;
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n', at);
        if (end === -1) break;
        const head = buffer.toString('latin1', at, end);
        const length = /\r\ncontent-length: *(\d+)/i.exec(head);
        const next = length ? end + 4 + Number(length[1]) : /\r\ntransfer-encoding: *chunked/i.test(head) ? chunkedEnd(buffer, end + 4) : undefined;
        if (next === undefined) {
          socket.destroy();
          reject(new Error(`answer without framing: ${head}`));
          return;
        }
        if (next === -1 || next > buffer.length) break;
        statuses.push(Number(head.slice(9, 12)));
        at = next;
      }
      buffer = buffer.subarray(at);
      if (statuses.length === count) socket.end();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (statuses.length === count) resolve(statuses);
      else reject(new Error(`connection closed after ${statuses.length} of ${count} answers`));
    });
  });
}

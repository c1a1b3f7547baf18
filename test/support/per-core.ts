/** A per-core server (ServerBuilder, two engine threads) and the clients the runtime tests use. */
import net from 'node:net';
import https from 'node:https';
import { Worker } from 'node:worker_threads';
import { parseCliOptions, ServerBuilder, type RunningServer } from '../../app/index.js';
import { createLogger, type Logger } from '../../engine/log/index.js';
import { adminCaller, type AdminCall } from './in-process.js';
import { http } from './servers.js';

export interface PerCoreServer {
  server: RunningServer;
  log: Logger;
  admin: AdminCall;
  metricsPort: number;
}

export async function startPerCore(extra: string[] = []): Promise<PerCoreServer> {
  const log = createLogger({ level: 'info', quiet: true });
  const options = parseCliOptions(
    ['--runtime', 'per-core', '--workers', '2', '--port', '0', '--host', '127.0.0.1', '--metrics-port', '0', '--nologfile', ...extra],
    {},
  );
  const server = await ServerBuilder.fromCli(options).logger(log).start();
  return { server, log, admin: adminCaller(server.adminAddr().port), metricsPort: server.metricsAddr()!.port };
}

/** svc_accepted_connections_total by worker slot. */
export async function acceptedBySlot(metricsPort: number): Promise<Map<string, number>> {
  const text = (await http('GET', `http://127.0.0.1:${metricsPort}/metrics`)).body;
  const counts = new Map<string, number>();
  for (const match of text.matchAll(/^svc_accepted_connections_total\{worker="(\d+)"\} (\d+)$/gm)) counts.set(match[1], Number(match[2]));
  return counts;
}

/** One GET on a fresh connection: the body, or the error code (ECONNRESET, ECONNREFUSED...). */
export async function fresh(port: number, path = '/'): Promise<string> {
  return http('GET', `http://127.0.0.1:${port}${path}`).then(
    (res) => res.body,
    (err: NodeJS.ErrnoException) => err.code ?? err.message,
  );
}

export function httpsGet(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
  });
}

/** A raw keep-alive HTTP/1.1 connection that has been answered once; resolves with the socket. */
export function keepAlive(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.once('data', () => resolve(socket));
    socket.on('error', reject);
  });
}

export async function until(condition: () => Promise<boolean>, what: string, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Concurrent GETs on fresh connections, sent from a worker thread: the in-process server's main thread
 * (slot 0) accepts too, and a burst built on that thread keeps it from accepting until the whole burst
 * is queued, so the engine thread would take it all. Resolves with the bodies in `paths` order.
 */
export function concurrentGets(port: number, paths: readonly string[]): Promise<string[]> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const get = (path) => new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: workerData.port, path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => { body += chunk; });
        res.on('end', () => resolve(body));
        res.on('error', (err) => resolve(err.code ?? err.message));
      });
      req.setTimeout(30000, () => req.destroy(new Error('timed out')));
      req.on('error', (err) => resolve(err.code ?? err.message));
    });
    Promise.all(workerData.paths.map(get)).then((bodies) => parentPort.postMessage(bodies));
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { port, paths } });
    worker.once('message', (bodies: string[]) => {
      resolve(bodies);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

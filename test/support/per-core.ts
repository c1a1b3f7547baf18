/** A per-core server (ServerBuilder, two engine threads) and the clients the runtime tests use. */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import net from 'node:net';
import https from 'node:https';
import { Worker } from 'node:worker_threads';
import * as assert from 'uvu/assert';
import { parseCliOptions, ServerBuilder, type RunningServer } from '../../index.js';
import { createLogger, type Logger } from '../../engine/log/index.js';
import { adminCaller, type AdminCall } from './in-process.js';
import { http } from './servers.js';

export interface PerCoreServer {
  server: RunningServer;
  log: Logger;
  admin: AdminCall;
  metricsPort: number;
}

export async function startPerCore(extra: string[] = [], level: 'info' | 'debug' = 'info'): Promise<PerCoreServer> {
  return startServer(['--runtime', 'per-core', '--workers', '2', ...extra], level);
}

/** The same server on one event loop (`--runtime single`), to compare what per-core answers with. */
export async function startSingle(extra: string[] = [], level: 'info' | 'debug' = 'info'): Promise<PerCoreServer> {
  return startServer(['--runtime', 'single', ...extra], level);
}

async function startServer(args: string[], level: 'info' | 'debug'): Promise<PerCoreServer> {
  const log = createLogger({ level, quiet: true });
  const options = parseCliOptions([...args, '--port', '0', '--host', '127.0.0.1', '--metrics-port', '0', '--nologfile'], {});
  const server = await ServerBuilder.fromCli(options).logger(log).start();
  return { server, log, admin: adminCaller(server.adminAddr().port), metricsPort: server.metricsAddr()!.port };
}

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

/** A child process's script sending `asks` one after another, each on a new connection, printing the answers as JSON. */
function clientScript(port: number, asks: Ask[]): string {
  return `
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
}

/**
 * Sends `asks` from a child process while this thread (svc's main thread when svc runs in this
 * process) is blocked; an answer that does not come within 5 s is an error (a forwarded request would
 * wait for this very thread forever).
 */
export function askWhileMainBlocked(port: number, asks: Ask[]): Answer[] {
  return JSON.parse(execFileSync(process.execPath, ['-e', clientScript(port, asks)], { timeout: 60_000 }).toString()) as Answer[];
}

/** The same asks from the same kind of client, this thread free meanwhile (a server on one loop here answers them). */
export async function askFromChild(port: number, asks: Ask[]): Promise<Answer[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', clientScript(port, asks)], { timeout: 60_000 });
  return JSON.parse(stdout) as Answer[];
}

/** An answer's body as text. */
export const text = (answer: Answer): string => Buffer.from(answer.body ?? '', 'base64').toString();

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

/**
 * Bursts of concurrent GETs (of `paths(attempt)`) on fresh connections, sent as concurrentGets sends them, until one burst was
 * accepted by both slot 0 and slot 1, at most `attempts` bursts: which thread accepts is the kernel's
 * choice, and a burst one thread took alone proves nothing across threads. `prepare` runs before each
 * burst (a scenario reset), `check` on each burst's bodies. True once a burst reached both threads.
 */
async function burstOnBothThreads(
  svc: PerCoreServer,
  port: number,
  paths: (attempt: number) => readonly string[],
  burst: { prepare?: () => Promise<void>; check: (bodies: string[]) => Promise<void> | void },
  attempts = 5,
): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    await burst.prepare?.();
    const before = await acceptedBySlot(svc.metricsPort);
    const bodies = await concurrentGets(port, paths(attempt));
    const after = await acceptedBySlot(svc.metricsPort);
    await burst.check(bodies);
    if (['0', '1'].every((slot) => (after.get(slot) ?? 0) > (before.get(slot) ?? 0))) return true;
  }
  return false;
}

/**
 * Bursts of 1,000 concurrent GETs, every path distinct across bursts, each body checked against `body`, until a burst
 * reached both engine threads (the test fails when none did). Returns how many requests were sent.
 */
export async function countedBurstsOnBothThreads(svc: PerCoreServer, port: number, body: string): Promise<number> {
  let sent = 0;
  const acrossThreads = await burstOnBothThreads(svc, port, (attempt) => Array.from({ length: 1000 }, (_, i) => `/n${attempt * 1000 + i}`), {
    check: (bodies) => {
      sent += bodies.length;
      assert.ok(
        bodies.every((b) => b === body),
        `every body is ${body}`,
      );
    },
  });
  assert.ok(acrossThreads, 'both threads accepted in one burst');
  return sent;
}

/**
 * A scenario test's bursts: 200 concurrent GETs of `/`, the port's scenarios reset before each, `check`
 * on each burst's bodies, until a burst reached both engine threads (the test fails when none did).
 */
export async function scenarioBurstsOnBothThreads(svc: PerCoreServer, port: number, check: (bodies: string[]) => Promise<void> | void): Promise<void> {
  const acrossThreads = await burstOnBothThreads(svc, port, () => Array.from({ length: 200 }, () => '/'), {
    prepare: async () => {
      assert.is((await svc.admin('POST', `/imposters/${port}/scenarios/reset`, {})).status, 200);
    },
    check,
  });
  assert.ok(acrossThreads, 'both threads accepted in one burst');
}

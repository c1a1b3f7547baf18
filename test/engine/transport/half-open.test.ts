/**
 * Issue 10 item 3: a client that connects and closes before its first byte, or after part of the
 * HTTP/2 preface (what TCP health probes do), is closed by the server on every port, and such a
 * socket never holds up a shutdown.
 */
import net from 'node:net';
import tls from 'node:tls';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ServerBuilder, type RunningServer } from '../../../app/index.js';
import { createLogger } from '../../../engine/log/index.js';
import { parseCliOptions } from '../../../index.js';
import { freePort, http } from '../../support/servers.js';

const log = createLogger({ level: 'error', quiet: true });
const test = suite('half-open connections');
/** Far above how long a server takes to close a socket it saw end (a few ms), far below "never". */
const CLOSE_WITHIN_MS = 5000;

async function startServer(): Promise<RunningServer> {
  const options = parseCliOptions(['--port', '0', '--host', '127.0.0.1', '--metrics-port', '0'], {});
  return ServerBuilder.fromCli(options).logger(log).start();
}

/** Connects, sends `bytes` (maybe none), half-closes; resolves whether the server closed its side in time. */
function probe(port: number, bytes: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, CLOSE_WITHIN_MS);
    socket.on('error', () => {});
    socket.on('connect', () => socket.end(bytes));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.resume();
  });
}

let server: RunningServer | undefined;
test.after.each(async () => {
  await server?.shutdown();
  server = undefined;
});

for (const [name, bytes] of [
  ['no byte', ''],
  ['part of the HTTP/2 preface', 'PRI * HTTP/2.0\r\n'],
] as const) {
  test(`closed before a request (${name}): imposter, admin and metrics ports close their side`, async () => {
    server = await startServer();
    const imposterPort = await freePort();
    const created = await http('POST', `http://127.0.0.1:${server.adminAddr().port}/imposters`, {
      body: JSON.stringify({ protocol: 'http', port: imposterPort, stubs: [{ responses: [{ is: { body: 'up' } }] }] }),
    });
    assert.is(created.status, 201);
    const httpsPort = await freePort();
    const secure = await http('POST', `http://127.0.0.1:${server.adminAddr().port}/imposters`, {
      body: JSON.stringify({ protocol: 'https', port: httpsPort }),
    });
    assert.is(secure.status, 201);
    const ports = { imposter: imposterPort, 'https imposter': httpsPort, admin: server.adminAddr().port, metrics: server.metricsAddr()!.port };
    for (const [plane, port] of Object.entries(ports)) {
      const closed = await Promise.all(Array.from({ length: 20 }, () => probe(port, bytes)));
      assert.ok(closed.every(Boolean), `${plane}: ${closed.filter((c) => !c).length} of 20 left open`);
    }
    assert.is((await http('GET', `http://127.0.0.1:${imposterPort}/`)).body, 'up');
  });
}

test('https: a client that half-closes after its request still gets the answer', async () => {
  server = await startServer();
  const port = await freePort();
  await http('POST', `http://127.0.0.1:${server.adminAddr().port}/imposters`, {
    body: JSON.stringify({ protocol: 'https', port, stubs: [{ responses: [{ is: { body: 'late' } }], predicates: [] }] }),
  });
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => {
      socket.end('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString();
    });
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 200/);
  assert.match(answer, /\r\nlate\r\n/);
});

test('shutdown() does not wait for idle or half-open client sockets', async () => {
  server = await startServer();
  const imposterPort = await freePort();
  await http('POST', `http://127.0.0.1:${server.adminAddr().port}/imposters`, {
    body: JSON.stringify({ protocol: 'http', port: imposterPort }),
  });
  const sockets: net.Socket[] = [];
  for (const port of [server.adminAddr().port, server.metricsAddr()!.port, imposterPort]) {
    for (const send of [null, '', 'PRI * HTTP/2.0\r\n', 'GET / HTTP/1.1\r\n']) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      await new Promise((resolve) => socket.once('connect', resolve));
      // null: connected and silent; a string: sent, then half-closed.
      if (send !== null) socket.end(send);
      sockets.push(socket);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  const started = Date.now();
  const running = server;
  server = undefined;
  const outcome = await Promise.race([running.shutdown().then(() => 'done'), new Promise((resolve) => setTimeout(() => resolve('hung'), 10_000))]);
  for (const socket of sockets) socket.destroy();
  assert.is(outcome, 'done', `shutdown still waiting after ${Date.now() - started} ms`);
});

test.run();

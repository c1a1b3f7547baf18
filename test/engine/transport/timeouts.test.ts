/**
 * Issue 10 item 4: imposter ports bound connections in time as mountebank's node:http imposters do
 * (keep-alive idle, request head, whole request), configured here with short values. Each test
 * waits for one expiry with a margin of several times the configured value on either side.
 */
import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ServerBuilder, type RunningServer } from '../../../app/index.js';
import { createLogger } from '../../../engine/log/index.js';
import { parseCliOptions } from '../../../index.js';
import { freePort, http } from '../../support/servers.js';

const log = createLogger({ level: 'error', quiet: true });
const test = suite('imposter connection timeouts');

const KEEP_ALIVE_MS = 300;
const HEADERS_MS = 400;
const REQUEST_MS = 800;
/** Expiry takes the timeout plus at most a sweep interval; this waits far longer before failing. */
const GIVE_UP_MS = 8000;

let server: RunningServer | undefined;
let port = 0;

test.before(async () => {
  const options = parseCliOptions(
    [
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--metrics-port',
      '0',
      '--keep-alive-timeout',
      String(KEEP_ALIVE_MS),
      '--headers-timeout',
      String(HEADERS_MS),
      '--request-timeout',
      String(REQUEST_MS),
    ],
    {},
  );
  server = await ServerBuilder.fromCli(options).logger(log).start();
  port = await freePort();
  // mountebank answers `Connection: close` by default; keep-alive needs the header.
  const created = await http('POST', `http://127.0.0.1:${server.adminAddr().port}/imposters`, {
    body: JSON.stringify({ protocol: 'http', port, stubs: [{ responses: [{ is: { body: 'ok', headers: { Connection: 'keep-alive' } } }] }] }),
  });
  assert.is(created.status, 201);
});

test.after(async () => {
  await server?.shutdown();
});

interface Closed {
  afterMs: number;
  received: string;
}

/** Connects, runs `drive`, and resolves when the server closes the connection (or GIVE_UP_MS passes). */
function whenClosed(drive: (socket: net.Socket) => void): Promise<Closed | null> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let started = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(null);
    }, GIVE_UP_MS);
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('connect', () => {
      started = Date.now();
      drive(socket);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ afterMs: Date.now() - started, received });
    });
  });
}

test('a connection that sends nothing is closed after the head timeout, without an answer', async () => {
  const closed = await whenClosed(() => {});
  assert.ok(closed !== null, 'still open');
  assert.ok(closed.afterMs >= HEADERS_MS - 50, `closed after ${closed.afterMs} ms`);
  assert.is(closed.received, '');
});

test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
  const closed = await whenClosed((socket) => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  assert.ok(closed !== null, 'still open');
  assert.match(closed.received, /^HTTP\/1\.1 200 OK\r\n/);
  assert.ok(closed.afterMs >= KEEP_ALIVE_MS - 50, `closed after ${closed.afterMs} ms`);
  assert.is(closed.received.split('HTTP/1.1').length, 2, 'one answer only');
});

test('a head that never completes (slowloris, a byte at a time) gets 408 and is closed', async () => {
  let trickle: NodeJS.Timeout | undefined;
  const closed = await whenClosed((socket) => {
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
    trickle = setInterval(() => socket.write('X'), 50);
  });
  clearInterval(trickle);
  assert.ok(closed !== null, 'still open');
  assert.match(closed.received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.match(closed.received, /"code":"408"/);
  assert.ok(closed.afterMs >= HEADERS_MS - 50, `closed after ${closed.afterMs} ms`);
});

test('a body that never completes gets 408 after the request timeout', async () => {
  const closed = await whenClosed((socket) => socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc'));
  assert.ok(closed !== null, 'still open');
  assert.match(closed.received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.ok(closed.afterMs >= REQUEST_MS - 50, `closed after ${closed.afterMs} ms`);
});

test('a silent client on the HTTP/2 preface is closed after the head timeout', async () => {
  const closed = await whenClosed((socket) => socket.write('PRI * HTTP/2.0\r\n'));
  assert.ok(closed !== null, 'still open');
  assert.ok(closed.afterMs >= HEADERS_MS - 50, `closed after ${closed.afterMs} ms`);
});

test('the server answers normally after the timeouts fired', async () => {
  assert.is((await http('GET', `http://127.0.0.1:${port}/`)).body, 'ok');
});

test.run();

/**
 * Issue 13's must-show, through the CLI and the public ports only: under `--runtime per-core
 * --workers 2` one imposter's connections are accepted by more than one engine thread (the
 * svc_accepted_connections_total{worker} metric), yet the state stays one: response cycling over
 * fresh connections, and a recorded request is in the journal as soon as its response is read.
 */
import { connect, type Socket } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminCaller, call, type AdminCall } from '../../support/in-process.js';
import { parseExposition } from '../../support/prom-text.js';
import { freePort, http, startSvc, type RunningServer } from '../../support/servers.js';

const CONNECTIONS = 200;
const BATCHES = 5;

const test = suite('--runtime per-core --workers 2 (issue 13 must-show)');
let server: RunningServer;
let admin: AdminCall;
let metricsPort: number;

test.before(async () => {
  metricsPort = await freePort();
  server = await startSvc({
    args: ['--runtime', 'per-core', '--workers', '2', '--metrics-port', String(metricsPort), '--pidfile', `/tmp/svc-per-core-must-show-${process.pid}.pid`],
  });
  admin = adminCaller(server.adminPort);
});
test.after(async () => {
  await server?.stop();
});
test.after.each(async () => {
  await admin('DELETE', '/imposters');
});

async function acceptedBySlot(): Promise<Map<string, number>> {
  const res = await http('GET', `http://127.0.0.1:${metricsPort}/metrics`);
  assert.is(res.status, 200);
  const samples = parseExposition(res.body).get('svc_accepted_connections_total')?.samples ?? [];
  return new Map(samples.map((s) => [s.labels.worker!, s.value]));
}

/**
 * The metric once it counts `expected` connections more than `before`: engine threads report their
 * accepts in batches, so a scrape may briefly trail connections already answered.
 */
async function acceptedBySlotReaching(before: Map<string, number>, expected: number): Promise<Map<string, number>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const now = await acceptedBySlot();
    const grown = [...now].reduce((sum, [slot, n]) => sum + n - (before.get(slot) ?? 0), 0);
    if (grown >= expected || Date.now() > deadline) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function createImposter(config: Record<string, unknown>): Promise<number> {
  const port = await freePort();
  const res = await admin('POST', '/imposters', { port, protocol: 'http', ...config });
  assert.is(res.status, 201, JSON.stringify(res.json));
  return port;
}

/** A keep-alive connection that has had one full response: resolves with the open socket. */
function answeredConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`connection closed before its answer: ${JSON.stringify(received)}`)));
    // Generous for a loaded machine; only a connection that is never answered meets it.
    socket.setTimeout(60_000, () => socket.destroy(new Error('no answer in 60 s')));
    socket.once('connect', () => socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    socket.on('data', (chunk: string) => {
      received += chunk;
      // The stub's body is the last thing the response carries.
      if (received.startsWith('HTTP/1.1 200') && received.endsWith('\r\n\r\nserved')) {
        socket.setTimeout(0);
        resolve(socket);
      }
    });
  });
}

test('200 concurrent connections to one imposter are accepted by at least two engine threads', async () => {
  const port = await createImposter({
    stubs: [{ responses: [{ is: { statusCode: 200, headers: { Connection: 'keep-alive', 'Content-Length': '6' }, body: 'served' } }] }],
  });
  const before = await acceptedBySlot();
  let delta: Array<readonly [string, number]> = [];
  let opened = 0;
  // A thread starved of CPU for a whole burst (load 30 on 2 cores) may leave every connection of one
  // batch to the other: a few more batches, each all concurrent, before calling it a failure.
  for (let batch = 0; batch < BATCHES && delta.filter(([, n]) => n > 0).length < 2; batch += 1) {
    const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => answeredConnection(port)));
    opened += CONNECTIONS;
    const after = await acceptedBySlotReaching(before, opened);
    for (const socket of sockets) socket.destroy();
    delta = [...after].map(([slot, n]) => [slot, n - (before.get(slot) ?? 0)] as const);
  }
  const split = delta.map(([slot, n]) => `${slot}: ${n}`).join(', ');
  assert.is(
    delta.reduce((sum, [, n]) => sum + n, 0),
    opened,
    `every connection is counted once (${split})`,
  );
  assert.ok(delta.filter(([, n]) => n > 0).length >= 2, `accepted by at least two slots: ${split}`);
  assert.ok(
    delta.every(([slot]) => slot === '0' || slot === '1'),
    `two engine threads are slots 0 and 1: ${split}`,
  );
});

test('six sequential requests on six fresh connections cycle A B C A B C', async () => {
  const port = await createImposter({
    stubs: [{ responses: ['A', 'B', 'C'].map((body) => ({ is: { body } })) }],
  });
  const bodies: string[] = [];
  // call() opens a fresh connection each time, so the kernel may hand each to either thread.
  for (let i = 0; i < 6; i += 1) bodies.push((await call(port, 'GET', '/')).body);
  assert.equal(bodies, ['A', 'B', 'C', 'A', 'B', 'C']);
});

test('each answered request is in savedRequests right after its response, indices 1..n in order', async () => {
  const port = await createImposter({ recordRequests: true, stubs: [{ responses: [{ is: { statusCode: 200 } }] }] });
  const n = 20;
  for (let i = 1; i <= n; i += 1) {
    assert.is((await call(port, 'GET', `/r/${i}`)).status, 200);
    const all = await admin('GET', `/imposters/${port}/savedRequests`);
    assert.equal(
      all.json.map((r: { path: string }) => r.path),
      Array.from({ length: i }, (_, k) => `/r/${k + 1}`),
      `journal after request ${i}`,
    );
    assert.is(all.headers['x-svc-next-index'], String(i));
    const latest = await admin('GET', `/imposters/${port}/savedRequests?since=${i - 1}`);
    assert.equal(
      latest.json.map((r: { path: string }) => r.path),
      [`/r/${i}`],
      `index ${i} is request ${i}`,
    );
  }
});

test.run();

/**
 * Issue 23 items 1 and 2: HTTP/2 sessions (h2c and over TLS, imposters, admin and metrics) close on the
 * client's FIN and under the keep-alive, head and request timeouts; streams past the advertised bound
 * are refused; a reader that keeps its window shut is cut off; TLS handshakes are bounded by the head
 * timeout; client renegotiation is refused. A spawned svc (SVC_RUNTIME and SVC_WORKERS pass through)
 * with short timeouts; fds and RSS are the server process's own.
 */
import { readdirSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closedWithin, FrameCounter, h2Get, openRaw, request, SETTING } from '../../support/h2-frames.js';
import { freePort, http, rssMbOf, startSvc, type RunningServer } from '../../support/servers.js';

const test = suite('HTTP/2 and TLS sessions');

const KEEP_ALIVE_MS = 300;
const HEADERS_MS = 400;
const REQUEST_MS = 800;
/** The admin plane keeps node:http's own keep-alive timeout. */
const ADMIN_KEEP_ALIVE_MS = 5000;
/** Five times the longest expected close (a timeout, a sweep interval, a busy 2-core box). */
const CLOSE_WITHIN_MS = 5 * (REQUEST_MS + KEEP_ALIVE_MS);
/** Sockets the server may still be closing when fds are counted. */
const FD_MARGIN = 6;
const SETTLE_MS = 10_000;
const ONE_MB = 1024 * 1024;

let svc: RunningServer;
let pid = 0;
let adminPort = 0;
let metricsPort = 0;
let frontDoorPort = 0;
let plainPort = 0;
let securePort = 0;
let bigPort = 0;
let baseline = 0;

const fdCount = (): number => readdirSync(`/proc/${pid}/fd`).length;
const rssMb = (): number => rssMbOf(pid);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function assertFdsBack(what: string): Promise<void> {
  const until = Date.now() + SETTLE_MS;
  let count = fdCount();
  while (count > baseline + FD_MARGIN && Date.now() < until) {
    await sleep(50);
    count = fdCount();
  }
  assert.ok(count <= baseline + FD_MARGIN, `${what}: ${count} fds open, baseline ${baseline}`);
}

test.before(async () => {
  metricsPort = await freePort();
  frontDoorPort = await freePort();
  svc = await startSvc({
    args: [
      '--metrics-port',
      String(metricsPort),
      '--front-door',
      `127.0.0.1:${frontDoorPort}`,
      '--loglevel',
      'error',
      '--keep-alive-timeout',
      String(KEEP_ALIVE_MS),
      '--headers-timeout',
      String(HEADERS_MS),
      '--request-timeout',
      String(REQUEST_MS),
    ],
  });
  pid = svc.pid as number;
  adminPort = svc.adminPort;
  [plainPort, securePort, bigPort] = [await freePort(), await freePort(), await freePort()];
  const imposters = [
    { protocol: 'http', port: plainPort, stubs: [{ responses: [{ is: { body: 'ok' } }] }] },
    { protocol: 'https', port: securePort, stubs: [{ responses: [{ is: { body: 'ok' } }] }] },
    { protocol: 'http', port: bigPort, stubs: [{ responses: [{ is: { body: 'x'.repeat(ONE_MB) } }] }] },
  ];
  for (const imposter of imposters) {
    const created = await http('POST', `http://127.0.0.1:${adminPort}/imposters`, { body: JSON.stringify(imposter) });
    assert.is(created.status, 201);
  }
  // Every plane has served once (lazy modules, engine threads) before the baseline is read.
  assert.is((await http('GET', `http://127.0.0.1:${metricsPort}/metrics`)).status, 200);
  await sleep(200);
  baseline = fdCount();
});

test.after(async () => {
  await svc?.stop();
});

test('30 sessions that half-close after the preface are closed on every plane (imposters, front door, admin, metrics), fds back to baseline', async () => {
  const planes: Array<[string, number, boolean]> = [
    ['h2c imposter', plainPort, false],
    ['h2 over TLS imposter', securePort, true],
    ['front door', frontDoorPort, false],
    ['admin', adminPort, false],
    ['metrics', metricsPort, false],
  ];
  for (const [plane, port, secure] of planes) {
    const sockets = await Promise.all(Array.from({ length: 30 }, () => openRaw(port, secure)));
    // The server's SETTINGS arrived: the session is up before the FIN.
    await sleep(100);
    const closed = await Promise.all(
      sockets.map((socket) => {
        const when = closedWithin(socket, CLOSE_WITHIN_MS);
        socket.end();
        return when;
      }),
    );
    assert.is(closed.filter((ms) => ms === null).length, 0, `${plane}: sessions left open after the client's FIN`);
    await assertFdsBack(plane);
  }
});

function connectH2(port: number, secure: boolean, settings: http2.Settings = {}): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`${secure ? 'https' : 'http'}://127.0.0.1:${port}`, { rejectUnauthorized: false, settings });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

/** ms from `started` until the server closes `session`, or null after `limitMs`. */
function sessionClosedWithin(session: http2.ClientHttp2Session, limitMs: number, started = Date.now()): Promise<number | null> {
  return new Promise((resolve) => {
    session.on('error', () => {});
    const timer = setTimeout(() => {
      session.destroy();
      resolve(null);
    }, limitMs);
    session.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

for (const [name, secure] of [
  ['h2c', false],
  ['h2 over TLS', true],
] as const) {
  test(`${name} imposter: an idle session, one idle after an answer and one with a body never sent are closed by the timeouts`, async () => {
    const port = secure ? securePort : plainPort;
    const idle = await connectH2(port, secure);
    const idleClosed = sessionClosedWithin(idle, CLOSE_WITHIN_MS);
    const afterAnswer = await connectH2(port, secure);
    assert.equal(await h2Get(afterAnswer), { status: 200, body: 'ok' });
    const afterAnswerClosed = sessionClosedWithin(afterAnswer, CLOSE_WITHIN_MS);
    const bodyless = await connectH2(port, secure);
    const stream = bodyless.request({ ':method': 'POST', ':path': '/' });
    stream.on('error', () => {});
    stream.resume();
    const timedOut = new Promise<number>((resolve) => stream.once('response', (headers) => resolve(Number(headers[':status']))));
    const [idleMs, afterAnswerMs, bodylessMs] = await Promise.all([idleClosed, afterAnswerClosed, sessionClosedWithin(bodyless, CLOSE_WITHIN_MS)]);
    assert.ok(idleMs !== null, 'idle session still open');
    assert.ok(idleMs >= HEADERS_MS - 50, `idle session closed after ${idleMs} ms`);
    assert.ok(afterAnswerMs !== null, 'session idle after an answer still open');
    assert.ok(afterAnswerMs >= KEEP_ALIVE_MS - 50, `closed after ${afterAnswerMs} ms`);
    assert.ok(bodylessMs !== null, 'session with a body never sent still open');
    assert.is(await timedOut, 408);
    await assertFdsBack(name);
  });
}

test('admin: a session idle after an answer is closed after the admin keep-alive timeout', async () => {
  const session = await connectH2(adminPort, false);
  assert.is((await h2Get(session, '/health')).status, 200);
  const closedMs = await sessionClosedWithin(session, 5 * ADMIN_KEEP_ALIVE_MS);
  assert.ok(closedMs !== null, 'admin session still open');
  assert.ok(closedMs >= ADMIN_KEEP_ALIVE_MS - 500, `closed after ${closedMs} ms`);
  await assertFdsBack('admin');
});

test('10,000 streams opened at once on each of 4 sessions: refused past the advertised bound, RSS bounded, fds back', async () => {
  const before = rssMb();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb());
  }, 20);
  const sessions = await Promise.all(Array.from({ length: 4 }, () => openRaw(plainPort, false)));
  const counters = sessions.map((socket) => new FrameCounter(socket));
  for (const socket of sessions) {
    // POST heads whose bodies never come: each holds a stream open until the request timeout.
    socket.write(Buffer.concat(Array.from({ length: 10_000 }, (_, k) => request(2 * k + 1, 'POST'))));
  }
  const closed = await Promise.all(sessions.map((socket) => closedWithin(socket, CLOSE_WITHIN_MS)));
  clearInterval(sampler);
  for (const counter of counters) {
    const advertised = counter.settings.get(SETTING.MAX_CONCURRENT_STREAMS);
    assert.ok(advertised !== undefined && advertised >= 100 && advertised <= 1000, `advertised ${advertised}`);
    assert.ok(counter.refused > 0 || counter.goaway !== null, 'no stream refused');
    // Streams the server took are those up to GOAWAY's last id that it did not refuse.
    const taken = counter.goaway === null ? 10_000 : (counter.goaway.lastStreamId + 1) / 2 - counter.refused;
    assert.ok(taken <= advertised, `${taken} streams taken, ${advertised} advertised`);
  }
  assert.is(closed.filter((ms) => ms === null).length, 0, 'sessions left open');
  assert.ok(peak - before < 100, `RSS ${before.toFixed(0)} -> ${peak.toFixed(0)} MB`);
  await assertFdsBack('streams');
  assert.equal(await h2Get(await connectH2(plainPort, false)), { status: 200, body: 'ok' });
});

test('a reader that keeps its window shut: unsent answers capped per session (503), the session cut by the keep-alive timeout', async () => {
  const before = rssMb();
  const session = await connectH2(bigPort, false, { initialWindowSize: 0 });
  const statuses = await Promise.all(
    Array.from(
      { length: 100 },
      () =>
        new Promise<number>((resolve) => {
          const stream = session.request({ ':path': '/' });
          stream.on('error', () => resolve(0));
          stream.once('response', (headers) => resolve(Number(headers[':status'])));
          stream.end();
        }),
    ),
  );
  const answered = statuses.filter((s) => s === 200).length;
  assert.ok(answered >= 1 && answered <= 33, `${answered} 1 MB answers held for one session`);
  assert.is(statuses.filter((s) => s === 503).length, 100 - answered);
  const peak = rssMb();
  const closedMs = await sessionClosedWithin(session, CLOSE_WITHIN_MS);
  assert.ok(closedMs !== null, 'the non-reading session is still open');
  assert.ok(peak - before < 200, `RSS ${before.toFixed(0)} -> ${peak.toFixed(0)} MB`);
  await assertFdsBack('window');
});

/** The first bytes of a TLS ClientHello record (type 22, version, length, handshake type 1). */
const HALF_HELLO = Buffer.from('16030100c8010000c40303', 'hex');

test('100 stalled TLS handshakes (silent, half a ClientHello, a ClientHello trickled) closed within the head timeout', async () => {
  const sockets = await Promise.all(
    Array.from(
      { length: 100 },
      () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect(securePort, '127.0.0.1', () => resolve(socket));
          socket.on('error', () => {});
        }),
    ),
  );
  const trickles: NodeJS.Timeout[] = [];
  sockets.forEach((socket, k) => {
    if (k % 3 === 1) socket.write(HALF_HELLO);
    if (k % 3 === 2) {
      let sent = 0;
      trickles.push(setInterval(() => sent < HALF_HELLO.length && socket.write(HALF_HELLO.subarray(sent, ++sent)), 50));
    }
  });
  const closed = await Promise.all(sockets.map((socket) => closedWithin(socket, 5 * HEADERS_MS)));
  for (const timer of trickles) clearInterval(timer);
  assert.is(closed.filter((ms) => ms === null).length, 0, 'handshakes still open after five head timeouts');
  await assertFdsBack('handshakes');
});

test('client-initiated renegotiation (TLS 1.2) is refused and the connection released', async () => {
  const outcomes = await Promise.all(
    Array.from(
      { length: 10 },
      () =>
        new Promise<string>((resolve) => {
          const socket = tls.connect(
            { port: securePort, host: '127.0.0.1', rejectUnauthorized: false, maxVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] },
            () => {
              socket.renegotiate({ rejectUnauthorized: false }, (error) => {
                resolve(error ? 'refused' : 'renegotiated');
                socket.destroy();
              });
            },
          );
          socket.on('error', () => {
            resolve('refused');
            socket.destroy();
          });
          setTimeout(() => {
            resolve('no answer');
            socket.destroy();
          }, CLOSE_WITHIN_MS);
        }),
    ),
  );
  assert.equal(outcomes, Array(10).fill('refused'));
  await assertFdsBack('renegotiation');
  assert.is((await http('GET', `http://127.0.0.1:${plainPort}/`)).body, 'ok');
});

test.run();

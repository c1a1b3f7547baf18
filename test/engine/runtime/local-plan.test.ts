/**
 * Per-core stage 2 (issue 13): engine threads answer imposters whose stubs are all static `is` from a
 * plan, with shared cycles, numberOfRequests and request metrics; everything else is forwarded.
 */
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http } from '../../support/servers.js';
import { acceptedBySlot, fresh, startPerCore, type PerCoreServer } from '../../support/per-core.js';

const test = suite<{ svc: PerCoreServer }>('runtime per-core local plans');

test.before(async (context) => {
  context.svc = await startPerCore();
});

test.after(async (context) => {
  await context.svc.server.shutdown();
});

/** mountebank's default is `Connection: close`: these imposters keep connections open. */
const KEEP = { headers: { Connection: 'keep-alive' } };

async function imposter(svc: PerCoreServer, config: Record<string, unknown>): Promise<number> {
  const port = await freePort();
  const res = await svc.admin('POST', '/imposters', { port, protocol: 'http', defaultResponse: KEEP, ...config });
  assert.is(res.status, 201, JSON.stringify(res.json));
  return port;
}

async function requestsTotal(svc: PerCoreServer, status: number): Promise<number> {
  const text = (await http('GET', `http://127.0.0.1:${svc.metricsPort}/metrics`)).body;
  const found = new RegExp(`^svc_requests_total\\{method="GET",status="${status}"\\} (\\d+)$`, 'm').exec(text);
  return found ? Number(found[1]) : 0;
}

async function numberOfRequests(svc: PerCoreServer, port: number): Promise<number> {
  return (await svc.admin('GET', `/imposters/${port}`)).json.numberOfRequests;
}

/** A keep-alive HTTP/1.1 connection: `ask` sends one GET and resolves with the body of its answer. */
class KeepAlive {
  private buffered = Buffer.alloc(0);
  private waiting: ((body: string) => void) | undefined;
  private failed: ((error: Error) => void) | undefined;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.settle();
    });
    socket.on('close', () => this.failed?.(new Error('connection closed before the answer')));
  }

  static open(port: number): Promise<KeepAlive> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new KeepAlive(socket)));
      socket.on('error', reject);
    });
  }

  private settle(): void {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0 || !this.waiting) return;
    const head = this.buffered.subarray(0, end).toString();
    let body = '';
    let next = end + 4;
    if (/transfer-encoding: chunked/i.test(head)) {
      // Chunk sizes in hex, each chunk followed by CRLF; the 0-size chunk ends the body.
      for (;;) {
        const line = this.buffered.indexOf('\r\n', next);
        if (line < 0) return;
        const size = parseInt(this.buffered.subarray(next, line).toString(), 16);
        if (this.buffered.length < line + 2 + size + 2) return;
        body += this.buffered.subarray(line + 2, line + 2 + size).toString();
        next = line + 2 + size + 2;
        if (size === 0) break;
      }
    } else {
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (this.buffered.length < next + length) return;
      body = this.buffered.subarray(next, next + length).toString();
      next += length;
    }
    this.buffered = this.buffered.subarray(next);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting(body);
  }

  ask(path = '/'): Promise<string> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
      this.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
  }
}

/**
 * Keep-alive connections until both engine threads hold some. Which thread accepts is the kernel's
 * choice (both wait on duplicates of one socket) and on a busy box one thread can win many in a row, so
 * a connection that landed on a thread already holding two is closed and another opened.
 */
async function onBothThreads(svc: PerCoreServer, port: number): Promise<{ connections: KeepAlive[]; asked: number }> {
  const kept = new Map<string, KeepAlive[]>();
  let before = await acceptedBySlot(svc.metricsPort);
  for (let i = 0; i < 400; i += 1) {
    const connection = await KeepAlive.open(port);
    await connection.ask();
    const now = await acceptedBySlot(svc.metricsPort);
    // Exactly one slot grew: the connection is on it (none or both: unknown, try another).
    const grew = ['0', '1'].filter((s) => (now.get(s) ?? 0) > (before.get(s) ?? 0));
    before = now;
    const slot = grew.length === 1 ? grew[0]! : undefined;
    const onSlot = slot === undefined ? undefined : (kept.get(slot) ?? []);
    if (slot === undefined || onSlot === undefined || onSlot.length >= 2) {
      connection.socket.destroy();
    } else {
      kept.set(slot, [...onSlot, connection]);
    }
    if (kept.size === 2) return { connections: [...kept.values()].flat(), asked: i + 1 };
  }
  for (const connection of [...kept.values()].flat()) connection.socket.destroy();
  throw new Error('connections never reached both engine threads');
}

const CYCLE = [{ is: { body: 'A' } }, { is: { body: 'B', statusCode: 201 } }, { is: { body: 'C' } }];

test('a static imposter is answered on both threads: cycle, numberOfRequests and svc_requests_total exact', async ({ svc }) => {
  const port = await imposter(svc, { stubs: [{ responses: CYCLE }] });
  const accepted = await acceptedBySlot(svc.metricsPort);
  const [ok, created] = [await requestsTotal(svc, 200), await requestsTotal(svc, 201)];
  const bodies: string[] = [];
  // Which thread the kernel hands a connection to is its choice: rounds of 30 until both took some.
  for (let round = 0; round < 20; round += 1) {
    for (let i = 0; i < 30; i += 1) bodies.push(await fresh(port));
    const now = await acceptedBySlot(svc.metricsPort);
    if (['0', '1'].every((slot) => (now.get(slot) ?? 0) > (accepted.get(slot) ?? 0))) break;
  }
  const n = bodies.length;
  assert.ok(n < 600, 'both threads accepted');
  assert.is(bodies.join(''), 'ABC'.repeat(n / 3));
  // Read right after the last answer: no settling time, the scrape itself collects what threads counted.
  assert.is(await requestsTotal(svc, 200), ok + (2 * n) / 3);
  assert.is(await requestsTotal(svc, 201), created + n / 3);
  assert.is(await numberOfRequests(svc, port), n);
  assert.is((await svc.admin('DELETE', `/imposters/${port}/savedRequests`)).status, 200);
  assert.is(await numberOfRequests(svc, port), 0);
  await fresh(port);
  assert.is(await numberOfRequests(svc, port), 1);
});

test('the engine thread answers a static imposter while the main thread is blocked', async ({ svc }) => {
  const port = await imposter(svc, { stubs: [{ responses: CYCLE }] });
  // Six fresh connections from a child process while this (the main) thread waits for it synchronously:
  // only the engine thread can accept and answer them, from its plan.
  const client = `
    const http = require('node:http');
    const get = () => new Promise((resolve, reject) => http.get({ host: '127.0.0.1', port: ${port}, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(body));
    }).on('error', reject));
    (async () => { let all = ''; for (let i = 0; i < 6; i += 1) all += await get(); process.stdout.write(all); })();`;
  const bodies = execFileSync(process.execPath, ['-e', client], { timeout: 30_000 }).toString();
  assert.is(bodies, 'ABCABC');
  assert.is(await numberOfRequests(svc, port), 6);
});

test('repeat and the no-match default are shared too, on keep-alive connections of both threads', async ({ svc }) => {
  const port = await imposter(svc, {
    defaultResponse: { ...KEEP, statusCode: 404, body: 'none' },
    stubs: [{ predicates: [{ equals: { path: '/' } }], responses: [{ is: { body: 'A' }, repeat: 2 }, { is: { body: 'B' } }] }],
  });
  const { connections, asked: served } = await onBothThreads(svc, port);
  const bodies: string[] = [];
  for (let i = 0; i < 12; i += 1) bodies.push(await connections[i % connections.length].ask());
  const expected = Array.from({ length: served + 12 }, (_, i) => ['A', 'A', 'B'][i % 3]).slice(served);
  assert.equal(bodies, expected);
  assert.is(await connections[0].ask('/other'), 'none');
  assert.is(await connections[connections.length - 1].ask('/other'), 'none');
  assert.is(await numberOfRequests(svc, port), served + 14);
  for (const c of connections) c.socket.destroy();
});

test('numberOfRequests stays exact when both threads count and it is cleared between their requests', async ({ svc }) => {
  // One response: no shared cycle position moves, yet every thread's count is summed.
  const port = await imposter(svc, { stubs: [{ responses: [{ is: { ...KEEP, body: 'X' } }] }] });
  const { connections, asked } = await onBothThreads(svc, port);
  const bodies: string[] = [];
  for (let i = 0; i < 10; i += 1) bodies.push(await connections[i % connections.length].ask());
  assert.equal(bodies, Array(10).fill('X'));
  assert.is(await numberOfRequests(svc, port), asked + 10);
  assert.is((await svc.admin('DELETE', `/imposters/${port}/savedRequests`)).status, 200);
  for (const c of connections) await c.ask();
  assert.is(await numberOfRequests(svc, port), connections.length);
  for (const c of connections) c.socket.destroy();
});

test('a stub edit is seen by the very next request on every thread, keep-alive connections included', async ({ svc }) => {
  const port = await imposter(svc, { stubs: [{ responses: [{ is: { body: 'v0' } }] }] });
  const { connections } = await onBothThreads(svc, port);
  for (let v = 1; v <= 8; v += 1) {
    const res = await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [{ responses: [{ is: { body: `v${v}` } }] }] });
    assert.is(res.status, 200);
    for (const c of connections) assert.is(await c.ask(), `v${v}`);
  }
  // Adding a stub before: the new first stub answers at once.
  await svc.admin('POST', `/imposters/${port}/stubs`, { index: 0, stub: { predicates: [{ equals: { path: '/new' } }], responses: [{ is: { body: 'new' } }] } });
  for (const c of connections) assert.is(await c.ask('/new'), 'new');
  for (const c of connections) c.socket.destroy();
});

test("an edit keeps unchanged stubs' cycle positions (shared slots survive)", async ({ svc }) => {
  const kept = { predicates: [{ equals: { path: '/k' } }], responses: CYCLE };
  const port = await imposter(svc, { stubs: [kept] });
  assert.is(await fresh(port, '/k'), 'A');
  const added = await svc.admin('POST', `/imposters/${port}/stubs`, {
    index: 0,
    stub: { predicates: [{ equals: { path: '/x' } }], responses: [{ is: { body: 'x' } }] },
  });
  assert.is(added.status, 200);
  assert.is(await fresh(port, '/x'), 'x');
  const bodies: string[] = [];
  for (let i = 0; i < 5; i += 1) bodies.push(await fresh(port, '/k'));
  assert.is(bodies.join(''), 'BCABC');
});

test('disable/enable and recordRequests switch threads to forwarding and back', async ({ svc }) => {
  const port = await imposter(svc, { stubs: [{ responses: [{ is: { body: 'on' } }] }] });
  const { connections } = await onBothThreads(svc, port);
  assert.is((await svc.admin('POST', `/imposters/${port}/disable`)).status, 200);
  for (const c of connections) assert.is(await c.ask(), '');
  assert.is((await svc.admin('POST', `/imposters/${port}/enable`)).status, 200);
  for (const c of connections) assert.is(await c.ask(), 'on');
  for (const c of connections) c.socket.destroy();

  const recorded = await imposter(svc, { recordRequests: true, stubs: [{ responses: CYCLE }] });
  const bodies: string[] = [];
  for (let i = 0; i < 12; i += 1) bodies.push(await fresh(recorded, `/r${i}`));
  assert.is(bodies.join(''), 'ABCABCABCABC');
  const saved = (await svc.admin('GET', `/imposters/${recorded}/savedRequests`)).json as Array<{ path: string }>;
  assert.equal(
    saved.map((r) => r.path),
    bodies.map((_, i) => `/r${i}`),
  );
});

test('a request asking for a debug report is answered where it was accepted and moves nothing', async ({ svc }) => {
  const port = await imposter(svc, { stubs: [{ responses: CYCLE }] });
  for (let i = 0; i < 4; i += 1) {
    const res = await http('GET', `http://127.0.0.1:${port}/`, { headers: { 'X-Svc-Debug': 'true' } });
    assert.is(res.headers['x-svc-debug-response'], 'true');
  }
  assert.is(await fresh(port), 'A');
});

test.run();

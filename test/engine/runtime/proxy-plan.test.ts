/**
 * Issue 18, proxies on engine threads: a proxy imposter is served by the thread that accepted the
 * request (it forwards with its own agents), proxyAlways recordings reach the stubs' owner in arrival
 * order, and proxyOnce requests in flight on several threads share one upstream call and one stub.
 */
import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call } from '../../support/in-process.js';
import { freePort, http } from '../../support/servers.js';
import { startUpstream } from '../../support/upstream.js';
import { acceptedBySlot, startPerCore, type PerCoreServer } from '../../support/per-core.js';

const test = suite<{ svc: PerCoreServer }>('runtime per-core proxies');

test.before(async (context) => {
  // Three threads: main (slot 0) and two engine threads.
  context.svc = await startPerCore(['--workers', '3']);
});

test.after(async (context) => {
  await context.svc.server.shutdown();
});

test.after.each(async ({ svc }) => {
  await svc.admin('DELETE', '/imposters');
});

async function imposter(svc: PerCoreServer, config: Record<string, unknown>): Promise<number> {
  const port = await freePort();
  const res = await svc.admin('POST', '/imposters', { port, protocol: 'http', ...config });
  assert.is(res.status, 201, JSON.stringify(res.json));
  return port;
}

async function metric(svc: PerCoreServer, name: string): Promise<number> {
  const text = (await http('GET', `http://127.0.0.1:${svc.metricsPort}/metrics`)).body;
  let sum = 0;
  for (const found of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))) sum += Number(found[1]);
  return sum;
}

/**
 * `paths` asked of the imposter on fresh connections by a child process that also runs the origin
 * (on `upstreamPort`), while this thread, the main one, waits for it synchronously: only an engine
 * thread can accept, forward and answer. Returns the answers and the paths the origin saw.
 */
function askWhileMainIsBlocked(port: number, upstreamPort: number, paths: string[]): { bodies: string[]; seen: string[] } {
  const client = `
    const http = require('node:http');
    const seen = [];
    const origin = http.createServer((req, res) => {
      seen.push(req.url);
      res.setHeader('Content-Type', 'text/plain');
      res.end('origin ' + req.url);
    });
    const get = (path) => new Promise((resolve, reject) => http.get({ host: '127.0.0.1', port: ${port}, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(res.statusCode + ' ' + body));
    }).on('error', reject));
    origin.listen(${upstreamPort}, '127.0.0.1', async () => {
      const bodies = [];
      for (const path of ${JSON.stringify(paths)}) bodies.push(await get(path));
      origin.closeAllConnections();
      origin.close();
      process.stdout.write(JSON.stringify({ bodies, seen }));
    });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', client], { timeout: 60_000 }).toString());
}

test('proxyTransparent: an engine thread forwards and answers while the main thread is blocked; journal and metrics exact', async ({ svc }) => {
  const upstreamPort = await freePort();
  const port = await imposter(svc, {
    recordRequests: true,
    stubs: [{ responses: [{ proxy: { to: `http://127.0.0.1:${upstreamPort}`, mode: 'proxyTransparent' } }] }],
  });
  const [upstreamCalls, proxied] = [await metric(svc, 'svc_upstream_request_duration_ms_count'), await metric(svc, 'svc_proxy_request_duration_ms_count')];
  const paths = ['/t0', '/t1', '/t2', '/t3', '/t4', '/t5'];
  const { bodies, seen } = askWhileMainIsBlocked(port, upstreamPort, paths);
  assert.equal(
    bodies,
    paths.map((path) => `200 origin ${path}`),
  );
  assert.equal(seen, paths);
  const saved = (await svc.admin('GET', `/imposters/${port}`)).json;
  assert.is(saved.numberOfRequests, paths.length);
  // Each thread's records reach main in its order; main blocked, two threads' batches meet there.
  assert.equal(saved.requests.map((r: { path: string }) => r.path).sort(), paths);
  assert.is(saved.stubs.length, 1, 'proxyTransparent records nothing');
  assert.is(await metric(svc, 'svc_upstream_request_duration_ms_count'), upstreamCalls + paths.length);
  assert.is(await metric(svc, 'svc_proxy_request_duration_ms_count'), proxied + paths.length);
});

test('proxyAlways: an engine thread answers while main is blocked; its recordings are applied in arrival order', async ({ svc }) => {
  const upstreamPort = await freePort();
  const port = await imposter(svc, {
    stubs: [{ responses: [{ proxy: { to: `http://127.0.0.1:${upstreamPort}`, mode: 'proxyAlways', predicateGenerators: [{ matches: { path: true } }] } }] }],
  });
  const paths = ['/a', '/b', '/a', '/c', '/a'];
  const { bodies, seen } = askWhileMainIsBlocked(port, upstreamPort, paths);
  assert.equal(
    bodies,
    paths.map((path) => `200 origin ${path}`),
  );
  assert.equal(seen, paths);
  const stubs = (await svc.admin('GET', `/imposters/${port}`)).json.stubs as Array<{ predicates?: unknown; responses: Array<{ is?: { body: string } }> }>;
  assert.equal(
    stubs.slice(1).map((stub) => [stub.predicates, stub.responses.map((r) => r.is?.body)]),
    [
      [[{ deepEquals: { path: '/a' } }], ['origin /a', 'origin /a', 'origin /a']],
      [[{ deepEquals: { path: '/b' } }], ['origin /b']],
      [[{ deepEquals: { path: '/c' } }], ['origin /c']],
    ],
  );
});

test('200 concurrent requests to a proxyOnce stub on every thread: one upstream call, one recorded stub', async ({ svc }) => {
  // 20 ms at the origin: the whole burst arrives while the first request is still there.
  const upstream = await startUpstream('http', (seen, res) => {
    setTimeout(() => res.end(`origin saw ${seen.url}`), 20);
  });
  try {
    const port = await imposter(svc, {
      stubs: [{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyOnce', predicateGenerators: [{ matches: { path: true } }] } }] }],
    });
    // Which thread accepts is the kernel's choice, and a starved thread can leave a whole burst to the
    // other: a burst on a path of its own until one reached both engine threads. Every burst must record
    // its path exactly once.
    let path = '';
    let threads: string[] = [];
    for (let burst = 0; burst < 5 && threads.length < 2; burst += 1) {
      path = `/once${burst}`;
      const before = await acceptedBySlot(svc.metricsPort);
      const answers = await Promise.all(Array.from({ length: 200 }, () => call(port, 'GET', path)));
      assert.equal([...new Set(answers.map((res) => `${res.status} ${res.body}`))], [`200 origin saw ${path}`]);
      const after = await acceptedBySlot(svc.metricsPort);
      threads = ['1', '2'].filter((slot) => (after.get(slot) ?? 0) > (before.get(slot) ?? 0));
      assert.is(upstream.seen.filter((seen) => seen.url === path).length, 1, `one upstream call for ${path}`);
    }
    assert.is(threads.length, 2, 'both engine threads accepted some of one burst');
    const stubs = (await svc.admin('GET', `/imposters/${port}`)).json.stubs as Array<{ predicates?: unknown }>;
    const recorded = stubs.slice(0, -1).map((stub) => JSON.stringify(stub.predicates));
    assert.is(recorded.length, upstream.seen.length, 'one recorded stub per burst, before the proxy');
    assert.is(recorded.filter((predicates) => predicates === JSON.stringify([{ deepEquals: { path } }])).length, 1);
    // The next request, on whichever thread, is answered by the recording.
    const calls = upstream.seen.length;
    for (let i = 0; i < 6; i += 1) assert.is((await call(port, 'GET', path)).body, `origin saw ${path}`);
    assert.is(upstream.seen.length, calls);
  } finally {
    await upstream.stop();
  }
});

test.run();

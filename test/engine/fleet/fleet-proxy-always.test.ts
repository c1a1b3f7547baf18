/**
 * Issue 20 scope 4: proxyAlways recordings are fleet-wide. Three svc processes on one redis-server, nginx
 * in front: every node's recordings go into the one shared imposter (concurrent writes from different
 * nodes never lose one), and every node ends with the same recorded stubs.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { http } from '../../support/servers.js';
import { startUpstream, type Upstream } from '../../support/upstream.js';
import { admin as adminOf, fleetFor, onAll, until } from '../../support/fleet-nodes.js';

const test = suite('fleet: proxyAlways recordings are fleet-wide');

const setup = fleetFor(test, 'always:');
let upstream: Upstream | undefined;

test.before(async () => {
  upstream = await startUpstream('http', (req, res) => {
    const call = upstream!.seen.length;
    setTimeout(() => res.end(`upstream call ${call} for ${req.url}`), 2);
  });
});

test.after(() => upstream?.stop());

const admin = (node: number, method: string, path: string, body?: unknown) => adminOf(setup.get(), node, method, path, body);

/** The node's replayable imposter, as text (compared across nodes) and parsed. */
async function replayableOn(node: number): Promise<{ status: number; text: string; stubs: Array<Record<string, unknown>> }> {
  const res = await admin(node, 'GET', `/imposters/${setup.get().imposterPort}?replayable=true`);
  // 404 until the node applied the imposter's creation.
  return { status: res.status, text: res.body, stubs: res.status === 200 ? (JSON.parse(res.body).stubs ?? []) : [] };
}

/** Responses per recorded stub path (the stubs after the proxy), on one node. */
function recordedCounts(stubs: Array<Record<string, unknown>>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const stub of stubs.slice(1)) {
    const predicates = stub.predicates as Array<{ deepEquals: { path: string } }>;
    counts[predicates[0].deepEquals.path] = (stub.responses as unknown[]).length;
  }
  return counts;
}

test('60 requests through nginx, 10 at a time, on 3 paths: every node holds 3 recorded stubs with all 60 responses', async () => {
  const { imposterPort, balancer } = setup.get();
  const proxy = { to: upstream!.origin, mode: 'proxyAlways', predicateGenerators: [{ matches: { path: true } }] };
  const created = await admin(1, 'PUT', '/imposters', { imposters: [{ protocol: 'http', port: imposterPort, stubs: [{ responses: [{ proxy }] }] }] });
  assert.is(created.status, 200, created.body);
  // Every node runs the proxy stub alone before traffic starts.
  await until(
    onAll(async (node) => {
      const { status, stubs } = await replayableOn(node);
      return status === 200 && stubs.length === 1 && JSON.stringify(stubs).includes('"proxyAlways"');
    }),
    10_000,
  );

  const paths = Array.from({ length: 60 }, (_, i) => `/p${i % 3}`);
  const sent: Record<string, number> = {};
  for (const path of paths) sent[path] = (sent[path] ?? 0) + 1;
  for (let at = 0; at < paths.length; at += 10) {
    const answers = await Promise.all(paths.slice(at, at + 10).map((path) => http('GET', `${balancer.url}${path}`, { timeoutMs: 30_000 })));
    for (const [i, a] of answers.entries()) {
      assert.is(a.status, 200, a.body);
      assert.ok(a.body.endsWith(` for ${paths[at + i]}`), a.body);
    }
  }
  assert.is(upstream!.seen.length, 60, 'proxyAlways proxied every request');

  // Each recording was shared before its response was sent: wait until every node applied the last one.
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  await until(
    onAll(async (node) => total(recordedCounts((await replayableOn(node)).stubs)) === 60),
    10_000,
  );
  const views = await Promise.all([1, 2, 3].map(replayableOn));
  for (const [i, view] of views.entries()) {
    assert.is(view.status, 200, view.text);
    assert.is(view.stubs.length, 4, `node ${i + 1}: the proxy and 3 recorded stubs`);
    assert.equal(recordedCounts(view.stubs), sent, `node ${i + 1}: each path's stub holds one response per request`);
    assert.is(view.text, views[0].text, `node ${i + 1} serves the same replayable imposter as node 1`);
  }
  // Every response the upstream gave is recorded once (none lost, none doubled by a retried write).
  const bodies = views[0].stubs.slice(1).flatMap((stub) => (stub.responses as Array<{ is: { body: string } }>).map((r) => r.is.body));
  assert.equal(bodies.sort(), Array.from({ length: 60 }, (_, i) => `upstream call ${i + 1} for ${upstream!.seen[i].url}`).sort());
});

// Last: redis does not come back.
test('redis stopped: proxyAlways still proxies and answers, and records nothing (no node holds a recording the fleet lacks)', async () => {
  const { imposterPort, redis } = setup.get();
  const before = await replayableOn(1);
  await redis.stop();
  const seen = upstream!.seen.length;
  for (const path of ['/p0', '/new']) {
    const res = await http('GET', `http://127.0.0.1:${imposterPort}${path}`, { timeoutMs: 30_000 });
    assert.is(res.status, 200, res.body);
    assert.is(res.body, `upstream call ${upstream!.seen.length} for ${path}`);
  }
  assert.is(upstream!.seen.length, seen + 2);
  // The recording's write was tried (and failed) before the response was sent.
  const after = await replayableOn(1);
  assert.is(after.text, before.text);
});

test.run();

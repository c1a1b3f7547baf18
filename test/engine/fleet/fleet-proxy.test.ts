/**
 * Issue 20 scope 4: proxyOnce records once fleet-wide. Three svc processes on one redis-server, nginx in
 * front, a local upstream that answers after 5 ms: concurrent requests on every node with the same
 * generated predicates reach the upstream once and record one stub, which every node then serves.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { http } from '../../support/servers.js';
import { startUpstream, type Upstream } from '../../support/upstream.js';
import { admin as adminOf, HOSTS, fleetFor, onAll, until } from '../../support/fleet-nodes.js';
import { inFlight } from '../../support/in-flight.js';

const test = suite('fleet: proxyOnce records once fleet-wide');

const setup = fleetFor(test, 'proxy:');
let upstream: Upstream | undefined;

test.after(() => upstream?.stop());

const admin = (node: number, method: string, path: string, body?: unknown) => adminOf(setup.get(), node, method, path, body);

/** The node's stubs of the imposter. */
async function stubsOn(node: number): Promise<Array<Record<string, unknown>>> {
  const res = await admin(node, 'GET', `/imposters/${setup.get().imposterPort}`);
  return res.status === 200 ? JSON.parse(res.body).stubs : [];
}

/** Every node runs the fleet's latest config version. */
async function converged(): Promise<boolean> {
  const versions = await Promise.all(
    [1, 2, 3].map(async (node) => {
      const status = JSON.parse((await admin(node, 'GET', '/fleet')).body);
      return status.nodes.map((n: { version: number }) => n.version) as number[];
    }),
  );
  const all = new Set(versions.flat());
  return versions.every((v) => v.length === 3) && all.size === 1;
}

/** `total` GETs to `path` through the balancer, all at once. */
function burst(paths: string[]): Promise<Array<{ status: number; body: string }>> {
  return Promise.all(paths.map((path) => http('GET', `${setup.get().balancer.url}${path}`, { timeoutMs: 30_000 })));
}

async function createProxy(): Promise<void> {
  const { imposterPort } = setup.get();
  const proxy = { to: upstream!.origin, mode: 'proxyOnce', predicateGenerators: [{ matches: { path: true } }] };
  const created = await admin(1, 'PUT', '/imposters', { imposters: [{ protocol: 'http', port: imposterPort, stubs: [{ responses: [{ proxy }] }] }] });
  assert.is(created.status, 200, created.body);
  // Every node runs the proxy stub alone (a node still on an older config would answer otherwise).
  await until(
    onAll(async (node) => JSON.stringify(await stubsOn(node)).includes('"proxyOnce"') && (await stubsOn(node)).length === 1),
    10_000,
  );
}

/** Answers the upstream holds back (the first `/hang`): ended when the suite stops. */
const held: Array<{ end(): void }> = [];

test.before(async () => {
  upstream = await startUpstream('http', (req, res) => {
    const call = upstream!.seen.length;
    if (req.url === '/hang' && upstream!.seen.filter((s) => s.url === '/hang').length === 1) {
      held.push(res);
      return;
    }
    setTimeout(() => res.end(`upstream call ${call} for ${req.url}`), 5);
  });
});

test.after(() => {
  for (const res of held) res.end();
});

test('200 concurrent requests through nginx: the upstream sees one, one stub is recorded, every node serves it', async () => {
  await createProxy();
  const answers = await burst(Array.from({ length: 200 }, () => '/same'));
  assert.equal([...new Set(answers.map((a) => `${a.status} ${a.body}`))], ['200 upstream call 1 for /same']);
  assert.is(upstream!.seen.length, 1, 'the upstream saw one request');
  // Every recording was shared before its response was sent: once the nodes run the latest version, each holds the fleet's stubs.
  await until(converged, 10_000);
  for (const node of [1, 2, 3]) {
    const stubs = await stubsOn(node);
    assert.is(stubs.length, 2, `node ${node}: one recorded stub and the proxy`);
    assert.equal(stubs[0].predicates, [{ deepEquals: { path: '/same' } }]);
    const res = await http('GET', `http://${HOSTS[node - 1]}:${setup.get().imposterPort}/same`);
    assert.is(res.body, 'upstream call 1 for /same', `node ${node} serves the recording`);
  }
  assert.is(upstream!.seen.length, 1);
});

test('20 paths × 10 concurrent requests: 20 upstream calls, 20 stubs on every node (recordings on different nodes never overwrite one another)', async () => {
  upstream!.seen.length = 0;
  await createProxy();
  const paths = Array.from({ length: 200 }, (_, i) => `/path/${i % 20}`);
  const answers = await burst(paths);
  assert.ok(
    answers.every((a) => a.status === 200),
    answers.map((a) => a.status).join(),
  );
  assert.equal([...new Set(upstream!.seen.map((s) => s.url))].sort(), [...new Set(paths)].sort());
  assert.is(upstream!.seen.length, 20, 'one upstream call per path');
  for (const [i, a] of answers.entries()) assert.ok(a.body.endsWith(` for ${paths[i]}`), a.body);
  await until(converged, 10_000);
  for (const node of [1, 2, 3]) assert.is((await stubsOn(node)).length, 21, `node ${node}: 20 recordings and the proxy`);
});

// Last: node 1 does not come back.
test('the claimer killed with -9 while its upstream call hangs: its claim expires, node 2 proxies and records, node 3 replays', async () => {
  const fleet = setup.get();
  upstream!.seen.length = 0;
  await createProxy();
  const onNode = (node: number) => http('GET', `http://${HOSTS[node - 1]}:${fleet.imposterPort}/hang`, { timeoutMs: 30_000 });
  const first = onNode(1).catch((err: Error) => err);
  await until(async () => upstream!.seen.length === 1, 10_000);
  const second = inFlight(onNode(2));
  process.kill(-(fleet.nodes[0].pid as number), 'SIGKILL');
  assert.ok((await first) instanceof Error, 'node 1 never answered');
  const answer = await second;
  assert.is(answer.status, 200);
  assert.is(answer.body, 'upstream call 2 for /hang', 'node 2 proxied once the claim expired');
  assert.is(upstream!.seen.length, 2);
  const third = await onNode(3);
  assert.is(third.body, 'upstream call 2 for /hang', "node 3 replays node 2's recording");
  assert.is(upstream!.seen.length, 2);
  assert.is((await stubsOn(3)).length, 2);
});

test.run();

/**
 * Issue 20: three svc processes on 127.0.0.1/2/3 in one fleet through a real redis-server, a real nginx
 * in front. Configuration is shared: written on one node, served by all; Redis down: traffic goes on,
 * admin writes are refused; Redis back: the fleet converges with no manual step.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http, startSvc, type HttpResponse, type RunningServer } from '../../support/servers.js';
import { startRedis, SuiteSetup, type RedisServer } from '../../support/redis-server.js';
import { startNginx, type Balancer } from '../../support/nginx.js';

const test = suite('fleet: three nodes, one redis, nginx in front');
const HOSTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];

interface Fleet {
  redis: RedisServer;
  redisDir: string;
  nodes: RunningServer[];
  adminPort: number;
  imposterPort: number;
  balancer: Balancer;
}

let fleet: Fleet | undefined;
const setup = new SuiteSetup<Fleet>(async () => {
  const redisDir = mkdtempSync(join(tmpdir(), 'svc-fleet-redis-'));
  const redis = await startRedis(undefined, { dir: redisDir });
  // The same admin and imposter ports on every node, side by side on their own loopback addresses.
  const adminPort = await freePort();
  const imposterPort = await freePort();
  const nodes: RunningServer[] = [];
  fleet = { redis, redisDir, nodes, adminPort, imposterPort, balancer: undefined as unknown as Balancer };
  for (const [i, host] of HOSTS.entries()) {
    nodes.push(await startSvc({ adminPort, host, args: ['--fleet', redis.url, '--fleet-prefix', 'e2e:', '--node-id', `node${i + 1}`] }));
  }
  fleet.balancer = await startNginx(
    await freePort(),
    HOSTS.map((host) => `${host}:${imposterPort}`),
  );
  return fleet;
});

test.before(setup.run);
test.after(async () => {
  await fleet?.balancer?.stop();
  for (const node of fleet?.nodes ?? []) await node.stop();
  await fleet?.redis.stop();
  if (fleet) rmSync(fleet.redisDir, { recursive: true, force: true });
});

function admin(node: number, method: string, path: string, body?: unknown): Promise<HttpResponse> {
  const { adminPort } = setup.get();
  return http(method, `http://${HOSTS[node - 1]}:${adminPort}${path}`, {
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** One request to a node's imposter port; 'refused' when nothing listens there. */
async function imposterOn(node: number, path = '/'): Promise<HttpResponse | 'refused' | 'reset'> {
  try {
    return await http('GET', `http://${HOSTS[node - 1]}:${setup.get().imposterPort}${path}`, { timeoutMs: 5_000 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') return 'refused';
    // A listener closing under the request: neither answered nor refused yet; callers poll again.
    if (code === 'ECONNRESET') return 'reset';
    throw err;
  }
}

/** Polls `check` until it holds (or `limitMs` passes); the elapsed ms when it held. */
async function until(check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > limitMs) throw new Error(`not reached within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const bodyIs = (expected: string) => async (node: number) => {
  const res = await imposterOn(node);
  return typeof res !== 'string' && res.status === 200 && res.body === expected;
};
const onAll = (check: (node: number) => Promise<boolean>) => async () => (await Promise.all([1, 2, 3].map(check))).every(Boolean);

function imposter(body: string): object {
  return { protocol: 'http', port: setup.get().imposterPort, stubs: [{ responses: [{ is: { body } }] }] };
}

test('an imposter created through node 1 answers on every node, and through the balancer, within 1 s', async () => {
  const { balancer } = setup.get();
  const created = await admin(1, 'POST', '/imposters', imposter('fleet says hi'));
  assert.is(created.status, 201, created.body);
  const elapsed = await until(onAll(bodyIs('fleet says hi')), 5_000);
  assert.ok(elapsed < 1_000, `every node answered after ${elapsed} ms`);
  // Round-robin over three nodes: six requests reach each node twice.
  for (let i = 0; i < 6; i += 1) {
    const res = await http('GET', `${balancer.url}/any`);
    assert.is(res.status, 200);
    assert.is(res.body, 'fleet says hi');
  }
});

test('a stub edit through node 3 reaches node 1; GET /fleet lists the three nodes at one version', async () => {
  const { imposterPort } = setup.get();
  const put = await admin(3, 'PUT', `/imposters/${imposterPort}/stubs`, { stubs: [{ responses: [{ is: { body: 'edited on 3' } }] }] });
  assert.is(put.status, 200, put.body);
  await until(onAll(bodyIs('edited on 3')), 5_000);
  const listed = JSON.parse((await admin(2, 'GET', '/fleet')).body);
  assert.is(listed.redis, 'up');
  assert.is(listed.node, 'node2');
  await until(async () => {
    const status = JSON.parse((await admin(2, 'GET', '/fleet')).body);
    const versions = new Set(status.nodes.map((n: { version: number }) => n.version));
    return status.nodes.length === 3 && versions.size === 1;
  }, 10_000);
  const status = JSON.parse((await admin(1, 'GET', '/fleet')).body);
  assert.equal(
    status.nodes.map((n: { id: string }) => n.id),
    ['node1', 'node2', 'node3'],
  );
  assert.equal(
    status.nodes.map((n: { address: string }) => n.address),
    HOSTS.map((host) => `${host}:${setup.get().adminPort}`),
  );
  assert.ok(status.nodes.every((n: { heartbeat: string }) => !Number.isNaN(Date.parse(n.heartbeat))));
});

test('20 stub edits through node 1: each reaches node 3 (p99 printed; each well under 1 s)', async () => {
  const { imposterPort } = setup.get();
  const waits: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    const start = Date.now();
    const put = await admin(1, 'PUT', `/imposters/${imposterPort}/stubs`, { stubs: [{ responses: [{ is: { body: `edit ${i}` } }] }] });
    assert.is(put.status, 200, put.body);
    await until(async () => (await bodyIs(`edit ${i}`)(3)) === true, 5_000);
    waits.push(Date.now() - start);
  }
  waits.sort((x, y) => x - y);
  console.log(`fleet propagation, admin PUT on node 1 until node 3 answers it: p50 ${waits[9]} ms, p99 ${waits[19]} ms (n=20)`);
  assert.ok(waits[19] < 1_000, `slowest ${waits[19]} ms`);
});

test('DELETE /imposters/{port} through node 2 frees the port on every node within 1 s', async () => {
  const { imposterPort } = setup.get();
  const deleted = await admin(2, 'DELETE', `/imposters/${imposterPort}`);
  assert.is(deleted.status, 200, deleted.body);
  const elapsed = await until(
    onAll(async (node) => (await imposterOn(node)) === 'refused'),
    5_000,
  );
  assert.ok(elapsed < 1_000, `every node freed the port after ${elapsed} ms`);
  for (const node of [1, 2, 3]) assert.is((await admin(node, 'GET', `/imposters/${imposterPort}`)).status, 404);
});

test('redis stopped: static stubs keep answering, admin writes get 503 and change nothing; back: the fleet converges', async () => {
  const fleet = setup.get();
  assert.is((await admin(1, 'POST', '/imposters', imposter('before the outage'))).status, 201);
  await until(onAll(bodyIs('before the outage')), 5_000);

  await fleet.redis.stop();
  // Traffic goes on through the balancer, on every node, while redis is away.
  for (let i = 0; i < 9; i += 1) {
    const res = await http('GET', `${fleet.balancer.url}/during`);
    assert.is(res.status, 200);
    assert.is(res.body, 'before the outage');
  }
  // Once every node has seen redis go (a write racing that moment is undone on its node before its 503).
  await until(
    onAll(async (node) => JSON.parse((await admin(node, 'GET', '/fleet')).body).redis === 'down'),
    5_000,
  );
  const edit = await admin(2, 'PUT', `/imposters/${fleet.imposterPort}/stubs`, { stubs: [{ responses: [{ is: { body: 'lost' } }] }] });
  assert.is(edit.status, 503, edit.body);
  const write = await admin(1, 'DELETE', `/imposters/${fleet.imposterPort}`);
  assert.is(write.status, 503);
  assert.is(JSON.parse(write.body).errors[0].type, 'service_unavailable');
  assert.ok(await onAll(bodyIs('before the outage'))(), 'nothing changed on any node');

  await new Promise((resolve) => setTimeout(resolve, 2_000));
  fleet.redis = await startRedis(fleet.redis.port, { dir: fleet.redisDir });
  // No manual step: writes are accepted again once each node has resynced, and reach every node.
  await until(
    async () => (await admin(3, 'PUT', `/imposters/${fleet.imposterPort}/stubs`, { stubs: [{ responses: [{ is: { body: 'after' } }] }] })).status === 200,
    15_000,
  );
  await until(onAll(bodyIs('after')), 5_000);
  for (let i = 0; i < 6; i += 1) assert.is((await http('GET', `${fleet.balancer.url}/after`)).body, 'after');
});

test.run();

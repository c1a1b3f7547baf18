/**
 * Issue 20: three svc processes on 127.0.0.1/2/3 in one fleet through a real redis-server, a real nginx
 * in front. Configuration is shared: written on one node, served by all; Redis down: traffic goes on,
 * admin writes are refused; Redis back: the fleet converges with no manual step.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { http } from '../../support/servers.js';
import { startRedis } from '../../support/redis-server.js';
import { admin as adminOf, HOSTS, imposterOn as imposterOf, onAll, fleetFor, until } from '../../support/fleet-nodes.js';

const test = suite('fleet: three nodes, one redis, nginx in front');

const setup = fleetFor(test, 'e2e:');

const admin = (node: number, method: string, path: string, body?: unknown) => adminOf(setup.get(), node, method, path, body);
const imposterOn = (node: number, path = '/') => imposterOf(setup.get(), node, path);

const bodyIs = (expected: string) => async (node: number) => {
  const res = await imposterOn(node);
  return typeof res !== 'string' && res.status === 200 && res.body === expected;
};

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

/**
 * Issue 20, the fleet-wide journal and cycles: three svc processes behind a real nginx share one
 * journal (a Redis Stream per imposter) with fleet-wide indices and each record's `node`, cycle
 * multi-response stubs fleet-wide, and keep serving through a Redis outage and a node killed with -9.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { http } from '../../support/servers.js';
import { SseClient, eventJson } from '../../support/sse-client.js';
import { startRedis } from '../../support/redis-server.js';
import { admin as adminOf, HOSTS, load, onAll, fleetFor, until } from '../../support/fleet-nodes.js';

const test = suite('fleet journal: one journal, one cycle, across three nodes');

const setup = fleetFor(test, 'journal:');

const admin = (node: number, method: string, path: string, body?: unknown) => adminOf(setup.get(), node, method, path, body);

interface Saved {
  requests: Array<{ path: string; node?: string; status?: number }>;
  nextIndex: string | undefined;
  truncated: boolean;
}

async function saved(node: number, query = ''): Promise<Saved> {
  const res = await admin(node, 'GET', `/imposters/${setup.get().imposterPort}/savedRequests${query}`);
  assert.is(res.status, 200, res.body);
  return {
    requests: JSON.parse(res.body),
    nextIndex: res.headers['x-svc-next-index'] as string | undefined,
    truncated: res.headers['x-svc-truncated'] === 'true',
  };
}

async function numberOfRequests(node: number): Promise<number> {
  return JSON.parse((await admin(node, 'GET', `/imposters/${setup.get().imposterPort}`)).body).numberOfRequests;
}

const PLAIN_STUBS = [
  { predicates: [{ equals: { path: '/abc' } }], responses: [{ is: { body: 'A' } }, { is: { body: 'B' } }, { is: { body: 'C' } }] },
  { responses: [{ is: { body: 'ok' } }] },
];

test('a recorded imposter created through node 1: 3,000 requests through nginx are one journal, indices 1..3000, every node present', async () => {
  const fleet = setup.get();
  const created = await admin(1, 'POST', '/imposters', {
    protocol: 'http',
    port: fleet.imposterPort,
    recordRequests: true,
    stubs: PLAIN_STUBS,
  });
  assert.is(created.status, 201, created.body);
  await until(
    onAll(async (node) => (await admin(node, 'GET', `/imposters/${fleet.imposterPort}`)).status === 200),
    5_000,
  );

  const run = await load(fleet, 'load', 3_000, 24);
  assert.equal(run.failed, []);
  assert.is(run.answered.length, 3_000);

  const all = await saved(3);
  assert.is(all.requests.length, 3_000);
  assert.is(all.nextIndex, '3000');
  assert.not.ok(all.truncated);
  assert.equal(new Set(all.requests.map((r) => r.node)), new Set(['node1', 'node2', 'node3']));
  assert.equal(new Set(all.requests.map((r) => r.path)), new Set(run.answered), 'every answered request, once');
  assert.ok(all.requests.every((r) => r.status === 200));
  // Indices are 1..3000 in the order stored: a cursor past 2,999 leaves exactly the last one.
  const last = await saved(1, '?since=2999');
  assert.is(last.requests.length, 1);
  assert.is(last.requests[0].path, all.requests[2_999].path);
  assert.is((await saved(2, '?since=1500')).requests.length, 1_500);
  assert.is((await saved(2, '?since=3000')).requests.length, 0);

  const verified = await admin(2, 'POST', `/imposters/${fleet.imposterPort}/verify`, { predicates: [{ startsWith: { path: '/load/' } }] });
  assert.is(verified.status, 200, verified.body);
  assert.is(JSON.parse(verified.body).matched, 3_000);
  for (const node of [1, 2, 3]) assert.is(await numberOfRequests(node), 3_000);
});

test('match= filters, verify closest and the record written before the response, on any node', async () => {
  const fleet = setup.get();
  const one = await saved(1, '?match=path=/load/1234');
  assert.is(one.requests.length, 1);
  assert.is(one.nextIndex, '3000');

  const missed = JSON.parse(
    (
      await admin(3, 'POST', `/imposters/${fleet.imposterPort}/verify`, {
        predicates: [{ equals: { path: '/load/7' } }, { equals: { method: 'POST' } }],
        includeClosest: true,
      })
    ).body,
  );
  assert.is(missed.matched, 0);
  assert.is(missed.closest.request.path, '/load/7');
  assert.is(missed.closest.failedPredicates.length, 1);

  // Read-your-writes: a request answered by node 2 is on node 3 as soon as the client has the answer.
  for (let i = 0; i < 5; i += 1) {
    const res = await http('GET', `http://${HOSTS[1]}:${fleet.imposterPort}/ryw/${i}`);
    assert.is(res.status, 200);
    const tail = await saved(3, `?since=${3_000 + i}`);
    assert.equal(
      tail.requests.map((r) => [r.path, r.node]),
      [[`/ryw/${i}`, 'node2']],
    );
    assert.is(tail.nextIndex, String(3_001 + i));
  }
});

test('SSE on node 3 hears requests node 1 recorded', async () => {
  const fleet = setup.get();
  const stream = await SseClient.open(`http://${HOSTS[2]}:${fleet.adminPort}/imposters/${fleet.imposterPort}/savedRequests/stream`);
  try {
    assert.is(stream.status, 200);
    await stream.next((e) => e.event === 'hello', 10_000);
    // A node starts hearing the others' records once it has a listener (within 50 ms): ask until it does.
    let event: any;
    for (let i = 0; event === undefined; i += 1) {
      assert.ok(i < 50, 'no request event from node 1 within 50 tries');
      assert.is((await http('GET', `http://${HOSTS[0]}:${fleet.imposterPort}/heard/${i}`)).status, 200);
      const heard = await stream.next((e) => e.event === 'request', 200).catch(() => undefined);
      if (heard) event = eventJson(heard);
    }
    assert.is(event.request.node, 'node1');
    assert.ok(event.request.path.startsWith('/heard/'));
    const page = await saved(2, `?since=${event.index - 1}`);
    assert.is(page.requests[0].path, event.request.path, 'the event carries the fleet index');
  } finally {
    stream.close();
  }
});

test('30 sequential requests to an A B C stub through nginx answer A B C ten times', async () => {
  const fleet = setup.get();
  const bodies: string[] = [];
  for (let i = 0; i < 30; i += 1) bodies.push((await http('GET', `${fleet.balancer.url}/abc`)).body);
  assert.equal(bodies, Array.from({ length: 10 }, () => ['A', 'B', 'C']).flat());
});

/** The stubs' first response bodies: tells the old imposter's stubs from the new ones. */
function stubBodies(stubs: Array<{ responses?: Array<{ is?: { body?: unknown } }> }>): string {
  return JSON.stringify(stubs.map((stub) => stub.responses?.[0]?.is?.body));
}

/**
 * Deletes the imposter through node 2 and creates `stubs` through node 3; resolves once every node holds
 * the new stubs (a node the change has not reached yet still answers with the old imposter) and serves them.
 */
async function recreate(stubs: Array<{ responses: Array<{ is: { body: string } }>; [key: string]: unknown }>): Promise<void> {
  const fleet = setup.get();
  assert.is((await admin(2, 'DELETE', `/imposters/${fleet.imposterPort}`)).status, 200);
  const created = await admin(3, 'POST', '/imposters', { protocol: 'http', port: fleet.imposterPort, recordRequests: true, stubs });
  assert.is(created.status, 201, created.body);
  const expected = stubBodies(stubs);
  await until(
    onAll(async (node) => {
      const res = await admin(node, 'GET', `/imposters/${fleet.imposterPort}`);
      return res.status === 200 && stubBodies(JSON.parse(res.body).stubs ?? []) === expected;
    }),
    5_000,
  );
  await until(
    onAll(async (node) => (await http('GET', `http://${HOSTS[node - 1]}:${fleet.imposterPort}/probe`).catch(() => undefined))?.status === 200),
    5_000,
  );
}

test('a scenario moved by one node is moved for all: one welcome, then welcome back from every node', async () => {
  const fleet = setup.get();
  const login = { predicates: [{ equals: { path: '/login' } }] };
  await recreate([
    { ...login, scenarioName: 'session', requiredScenarioState: 'Started', newScenarioState: 'LoggedIn', responses: [{ is: { body: 'welcome' } }] },
    { ...login, scenarioName: 'session', requiredScenarioState: 'LoggedIn', responses: [{ is: { body: 'welcome back' } }] },
    { responses: [{ is: { body: 'ok' } }] },
  ]);
  const bodies: string[] = [];
  for (let i = 0; i < 6; i += 1) bodies.push((await http('GET', `${fleet.balancer.url}/login`)).body);
  assert.equal(bodies, ['welcome', ...Array.from({ length: 5 }, () => 'welcome back')]);
  const states = JSON.parse((await admin(1, 'GET', `/imposters/${fleet.imposterPort}/scenarios`)).body);
  assert.ok(JSON.stringify(states).includes('LoggedIn'), JSON.stringify(states));
  // A new imposter on the port starts its journal (and scenarios) over; the plain one comes back for what follows.
  await recreate(PLAIN_STUBS);
  const restarted = await saved(1);
  assert.ok(Number(restarted.nextIndex) < 100, `indices start over: ${restarted.nextIndex}`);
  assert.is(restarted.requests.length, Number(restarted.nextIndex));
});

test('DELETE savedRequests through node 2 clears every node; indices go on', async () => {
  const fleet = setup.get();
  const before = Number((await saved(1)).nextIndex);
  assert.is((await admin(2, 'DELETE', `/imposters/${fleet.imposterPort}/savedRequests`)).status, 200);
  for (const node of [1, 2, 3]) {
    const page = await saved(node);
    assert.is(page.requests.length, 0);
    assert.is(page.nextIndex, String(before));
    assert.is(await numberOfRequests(node), 0);
  }
  assert.is((await http('GET', `${fleet.balancer.url}/after-clear`)).status, 200);
  const page = await saved(3, `?since=${before}`);
  assert.equal(
    page.requests.map((r) => r.path),
    ['/after-clear'],
  );
});

test('redis stopped 5 s under load: traffic goes on, admin writes 503 and change nothing, reads report the gap; back: converges', async () => {
  const fleet = setup.get();
  let stopLoad = false;
  const background = load(fleet, 'outage', 1_000_000, 4, () => stopLoad);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await fleet.redis.stop();
    await until(
      onAll(async (node) => JSON.parse((await admin(node, 'GET', '/fleet')).body).redis === 'down'),
      5_000,
    );
    const edit = await admin(2, 'PUT', `/imposters/${fleet.imposterPort}/stubs`, { stubs: [{ responses: [{ is: { body: 'lost' } }] }] });
    assert.is(edit.status, 503, edit.body);
    const cleared = await admin(3, 'DELETE', `/imposters/${fleet.imposterPort}/savedRequests`);
    assert.is(cleared.status, 503, cleared.body);
    const degraded = await saved(1);
    assert.ok(degraded.truncated, 'a degraded read says so');
    assert.is(degraded.nextIndex, undefined, 'and gives no cursor');
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    fleet.redis = await startRedis(fleet.redis.port, { dir: fleet.redisDir });
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    // A failed check must not leave a million requests running into the next tests.
    stopLoad = true;
  }
  const run = await background;
  assert.equal(run.failed, [], 'every request through the outage was answered');
  assert.ok(run.answered.length > 20, `answered ${run.answered.length}`);
  // Nothing changed: the static stub still answers on every node.
  for (const node of [1, 2, 3]) {
    const res = await http('GET', `http://${HOSTS[node - 1]}:${fleet.imposterPort}/check`);
    assert.is(res.body, 'ok');
  }
  // No manual step: writes are accepted again, and the gap stays reported until the journal is cleared.
  await until(
    async () => (await admin(3, 'PUT', `/imposters/${fleet.imposterPort}/stubs/1`, { responses: [{ is: { body: 'back' } }] })).status === 200,
    15_000,
  );
  await until(
    onAll(async (node) => (await http('GET', `http://${HOSTS[node - 1]}:${fleet.imposterPort}/x`)).body === 'back'),
    5_000,
  );
  const after = await saved(2);
  assert.ok(after.truncated);
  assert.is(after.nextIndex, undefined);
  assert.is((await admin(1, 'DELETE', `/imposters/${fleet.imposterPort}/savedRequests`)).status, 200);
  const clean = await saved(3);
  assert.not.ok(clean.truncated);
  assert.ok(clean.nextIndex !== undefined);
});

test('kill -9 of node 2 under load: nodes 1 and 3 keep answering through nginx, no acknowledged record is lost', async () => {
  const fleet = setup.get();
  assert.is((await admin(1, 'DELETE', `/imposters/${fleet.imposterPort}/savedRequests`)).status, 200);
  let killed = false;
  const background = load(fleet, 'kill', 1_500, 12);
  await new Promise((resolve) => setTimeout(resolve, 500));
  process.kill(-(fleet.nodes[1].pid as number), 'SIGKILL');
  killed = true;
  const run = await background;
  assert.ok(killed);
  // nginx passes what node 2 cannot take to the next node (proxy_next_upstream error).
  assert.equal(run.failed, []);
  const journal = await saved(3);
  const recorded = new Set(journal.requests.map((r) => r.path));
  const lost = run.answered.filter((path) => !recorded.has(path));
  assert.equal(lost, [], 'every request answered 200 is in the journal');
  // After the kill the balancer's answers come from nodes 1 and 3.
  const tail = await load(fleet, 'survivors', 60, 3);
  assert.equal(tail.failed, []);
  const survivors = await saved(1, `?match=path=${encodeURIComponent('/survivors/0')}`);
  assert.ok(['node1', 'node3'].includes(survivors.requests[0].node as string));
});

test.run();

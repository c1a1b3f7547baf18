/**
 * Issue 20 through the embedding API: two managers on one redis-server, each given a RedisFleet. Reads
 * made straight on the manager (savedRequests, verify, syncJournals before render) see the requests
 * the other node answered, as the admin HTTP reads do, with no admin call in between.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fleetMember } from '../support/fleet-nodes.js';
import { freePort, http } from '../support/servers.js';
import { startRedis, SuiteSetup, type RedisServer } from '../support/redis-server.js';

const test = suite('embedding API: fleet reads');
let redis: RedisServer | undefined;
const setup = new SuiteSetup(async () => (redis = await startRedis()));
test.before(setup.run);
test.after(async () => {
  await redis?.stop();
});

const member = (url: string, host: string, id: string) => fleetMember(url, host, id, 'embed-reads:');

test('savedRequests, verify and render (after syncJournals) on manager a see what manager b answered', async () => {
  const server = setup.get();
  const a = member(server.url, '127.0.0.1', 'a');
  const b = member(server.url, '127.0.0.2', 'b');
  try {
    await a.joinFleet();
    await b.joinFleet();
    const port = await freePort();
    await a.createImposter({ protocol: 'http', port, recordRequests: true, stubs: [{ responses: [{ is: { body: 'ok' } }] }] });
    for (let i = 0; i < 500 && !b.get(port); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < 3; i += 1) assert.is((await http('GET', `http://127.0.0.2:${port}/on-b/${i}`)).body, 'ok');
    // b wrote each record before its response: a's reads find them at once.
    const page = await a.savedRequests(port, {});
    assert.equal(
      page.requests.map((r) => [r.path, (r as { node?: string }).node]),
      [0, 1, 2].map((i) => [`/on-b/${i}`, 'b']),
    );
    assert.is(page.nextIndex, 3);
    const verified = await a.verify(port, { predicates: [{ startsWith: { path: '/on-b/' } }] });
    assert.is(verified.matched, 3);
    assert.is((await http('GET', `http://127.0.0.2:${port}/on-b/3`)).body, 'ok');
    await a.syncJournals(port);
    const rendered = a.render(port, {}) as { numberOfRequests: number; requests: Array<{ path: string }> };
    assert.is(rendered.numberOfRequests, 4);
    assert.is(rendered.requests.at(-1)?.path, '/on-b/3');
  } finally {
    await a.close();
    await b.close();
  }
});

test.run();

/**
 * Issue 20, the fleet's edges: bad `--fleet` values and an unreachable Redis fail start-up naming the
 * flag; the embedding API (a manager given a RedisFleet) shares writes with another manager, and refuses
 * them with a 503 that changes nothing while Redis is down.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCliOptions, UsageError } from '../../../app/index.js';
import { isSvcError } from '../../../engine/model/index.js';
import { freePort, http } from '../../support/servers.js';
import { runSvc } from '../../support/run-svc.js';
import { fleetMember } from '../../support/fleet-nodes.js';
import { startRedis, SuiteSetup, type RedisServer } from '../../support/redis-server.js';

const test = suite('fleet: options, start-up errors and the embedding API');
let redis: RedisServer | undefined;
const setup = new SuiteSetup(async () => (redis = await startRedis()));
test.before(setup.run);
test.after(async () => {
  await redis?.stop();
});

const usageError = (argv: string[], env: NodeJS.ProcessEnv, pattern: RegExp) =>
  assert.throws(
    () => parseCliOptions(argv, env),
    (err: unknown) => err instanceof UsageError && pattern.test((err as Error).message),
  );

test('--fleet takes redis://HOST:PORT[/DB] only, SVC_FLEET too; --fleet-prefix and --node-id parse', () => {
  usageError(['--fleet', 'http://127.0.0.1:6379'], {}, /^--fleet must use the redis:\/\/ scheme/);
  usageError(['--fleet', 'redis://127.0.0.1:6379/zero'], {}, /^--fleet database must be a number/);
  usageError(['--fleet', 'localhost:6379'], {}, /^--fleet /);
  usageError([], { SVC_FLEET: 'nonsense' }, /^SVC_FLEET must be a URL/);
  usageError(['--node-id', ' '], {}, /^--node-id must not be blank/);
  const options = parseCliOptions(['--fleet', 'redis://10.0.0.5:6380/2', '--fleet-prefix', 'team:', '--node-id', 'a'], {});
  assert.equal([options.fleet, options.fleetPrefix, options.nodeId], ['redis://10.0.0.5:6380/2', 'team:', 'a']);
  assert.is(parseCliOptions([], { SVC_FLEET: 'redis://r:1' }).fleet, 'redis://r:1');
});

test('svc start with a bad or unreachable --fleet exits non-zero naming the flag', async () => {
  const port = String(await freePort());
  const bad = await runSvc(['start', '--port', port, '--nologfile', '--fleet', 'redis:/nohost']);
  assert.is(bad.status, 2, bad.stdout + bad.stderr);
  assert.match(bad.stderr, /--fleet/);
  const closed = await freePort();
  const unreachable = await runSvc(['start', '--port', port, '--nologfile', '--fleet', `redis://127.0.0.1:${closed}`]);
  assert.ok(unreachable.status !== 0, unreachable.stdout + unreachable.stderr);
  assert.match(unreachable.stdout + unreachable.stderr, /--fleet: cannot join the fleet at redis:\/\/127\.0\.0\.1/);
});

const member = (url: string, host: string, id: string) => fleetMember(url, host, id, 'embed:');

test('embedding: two managers on one redis share writes; with redis down a write is a 503 and changes nothing', async () => {
  const server = setup.get();
  const a = member(server.url, '127.0.0.1', 'a');
  const b = member(server.url, '127.0.0.2', 'b');
  try {
    await a.joinFleet();
    await b.joinFleet();
    const port = await freePort();
    await a.createImposter({ protocol: 'http', port, stubs: [{ responses: [{ is: { body: 'shared' } }] }] });
    for (let i = 0; i < 500 && !b.get(port); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.is((await http('GET', `http://127.0.0.2:${port}/`)).body, 'shared');
    await b.setEnabled(port, { enabled: false });
    for (let i = 0; i < 500 && a.get(port)?.enabled; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.is(a.get(port)?.enabled, false, 'disabling on b disables on a');

    await server.stop();
    // At once: either the node already knows redis is gone (refused up front), or the write fails to share and is undone.
    const refused = await a.deleteImposter(port, {}).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(isSvcError(refused) && refused.status === 503, String(refused));
    assert.ok(a.get(port), 'the imposter is still there');
    redis = await startRedis(server.port);
  } finally {
    await a.close();
    await b.close();
  }
});

test.run();

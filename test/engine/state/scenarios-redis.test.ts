import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { startRedis, type RedisServer } from '../../support/redis-server.js';

const test = suite('scenarios on the redis flow store (real redis-server)');
const svc = inProcessForSuite(test, { keepImposters: true });
let redis: RedisServer;

test.before(async () => {
  redis = await startRedis();
});
test.after(async () => {
  await redis?.stop();
});

const text = (body: string) => [{ is: { statusCode: 200, body } }];
const stubs = [
  { scenarioName: 'order', requiredScenarioState: 'Started', newScenarioState: 'Paid', responses: text('created') },
  { scenarioName: 'order', requiredScenarioState: 'Paid', newScenarioState: 'Shipped', responses: text('paid') },
  { scenarioName: 'order', requiredScenarioState: 'Shipped', responses: text('shipped') },
];

test("two imposters on one redis (as two svc processes would be) share a flow's scenario; a stopped redis is a 503", async () => {
  const flowState = { backend: 'redis', url: redis.url, keyPrefix: 'scen:', flowIdSource: 'header:X-Flow' };
  const first = await svc.createImposter({ _svc: { flowState }, stubs });
  const second = await svc.createImposter({ _svc: { flowState }, stubs });
  const get = async (port: number, flow: string) => (await call(port, 'GET', '/', { headers: { 'X-Flow': flow } })).body;

  assert.is(await get(first, 'a'), 'created');
  assert.is(await get(second, 'a'), 'paid', 'the second imposter sees the move the first made');
  assert.is(await get(second, 'b'), 'created', 'flows stay apart');
  const listed = await svc.admin('GET', `/imposters/${first}/scenarios?flowId=a`);
  assert.equal(listed.json, { flowId: 'a', scenarios: [{ name: 'order', state: 'Shipped' }] });

  const set = await svc.admin('PUT', `/imposters/${second}/scenarios/order/state`, { state: 'Paid', flowId: 'a' });
  assert.is(set.status, 200);
  assert.is(await get(first, 'a'), 'paid');
  const reset = await svc.admin('POST', `/imposters/${first}/scenarios/reset`, { flowId: 'a' });
  assert.equal(reset.json, { flowId: 'a', reset: true });
  assert.is(await get(second, 'a'), 'created');

  // Both imposters may read Started before either moves; the move is a compare-and-set, so the loser
  // matches again under Paid instead of answering `created` twice.
  for (let round = 0; round < 10; round++) {
    await svc.admin('POST', `/imposters/${first}/scenarios/reset`, { flowId: 'race' });
    const answers = await Promise.all([get(first, 'race'), get(second, 'race')]);
    assert.equal(answers.sort(), ['created', 'paid'], `round ${round}`);
  }

  await redis.stop();
  const down = await call(first, 'GET', '/', { headers: { 'X-Flow': 'a' } });
  assert.is(down.status, 503);
  assert.is(JSON.parse(down.body).errors[0].type, 'service_unavailable');
  const admin = await svc.admin('GET', `/imposters/${first}/scenarios?flowId=a`);
  assert.is(admin.status, 503);
  assert.match(admin.json.errors[0].message, /flow store unavailable/);
});

test.run();

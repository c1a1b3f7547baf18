import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';

const test = suite('a _svc.script pass() falls through still gated by spaces and scenario states');
// The first request runs a script: warm the workers so a cold start is not charged to its 5 s deadline.
const svc = inProcessForSuite(test, { allowInjection: true, warmScripts: true, keepImposters: true });

const text = (body: string) => [{ is: { statusCode: 200, body } }];

test('the stubs after a pass skip other spaces and wrong states, and the one that answers moves its scenario', async () => {
  const port = await svc.createImposter({
    _svc: { flowState: { flowIdSource: 'header:X-Flow' } },
    recordRequests: true,
    stubs: [
      { responses: [{ _svc: { script: { code: 'pass()' } } }] },
      { space: 'b', responses: text('space b') },
      { scenarioName: 's', requiredScenarioState: 'Started', newScenarioState: 'Done', responses: text('first') },
      { scenarioName: 's', requiredScenarioState: 'Done', responses: text('second') },
    ],
  });
  const get = async () => (await call(port, 'GET', '/', { headers: { 'X-Flow': 'a' } })).body;
  assert.is(await get(), 'first');
  assert.is(await get(), 'second');
  const [, last] = (await svc.admin('GET', `/imposters/${port}/savedRequests`)).json;
  assert.equal(
    last.matchOutcome.tried.map((t: { stubIndex: number; why: { reason: string } }) => [t.stubIndex, t.why.reason]),
    [
      [1, 'skippedSpace'],
      [2, 'skippedScenarioState'],
    ],
  );
  assert.is((await call(port, 'GET', '/', { headers: { 'X-Flow': 'b' } })).body, 'space b');
});

test('predicate scripts and injections still run on an imposter with gated stubs', async () => {
  const port = await svc.createImposter({
    stubs: [
      { space: 'elsewhere', responses: text('never') },
      { predicates: [{ _svc: { script: { code: 'fn matches(ctx) { ctx.request.query.vip == "1" }' } } }], responses: text('vip') },
      { predicates: [{ inject: 'function (config) { return config.request.query.js === "1"; }' }], responses: text('js') },
      { responses: text('plain') },
    ],
  });
  assert.is((await call(port, 'GET', '/?vip=1')).body, 'vip');
  assert.is((await call(port, 'GET', '/?js=1')).body, 'js');
  assert.is((await call(port, 'GET', '/')).body, 'plain');
});

test.run();

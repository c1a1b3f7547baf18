import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startInProcess, call, type InProcessSvc } from '../helpers/in-process.js';

const test = suite('a _svc.script pass() falls through still gated by spaces and scenario states');
let svc: InProcessSvc;

test.before(async () => { svc = await startInProcess({ allowInjection: true }); });
test.after(async () => { await svc.stop(); });

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
  assert.equal(last.matchOutcome.tried.map((t: { stubIndex: number; why: { reason: string } }) => [t.stubIndex, t.why.reason]), [
    [1, 'skippedSpace'], [2, 'skippedScenarioState'],
  ]);
  assert.is((await call(port, 'GET', '/', { headers: { 'X-Flow': 'b' } })).body, 'space b');
});

test.run();

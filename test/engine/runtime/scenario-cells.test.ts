/**
 * Issue 18: scenario states of the in-memory flow store live in shared memory under the per-core
 * runtime, so an engine thread gates and moves a scenario without the main thread (the store's owner).
 * Each request below that must be an engine thread's is sent while the main thread is blocked on purpose.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http } from '../../support/servers.js';
import { askWhileMainBlocked, scenarioBurstsOnBothThreads, startPerCore, text, type PerCoreServer } from '../../support/per-core.js';

const test = suite<{ svc: PerCoreServer }>('runtime per-core: in-memory scenarios in shared memory');

test.before(async (context) => {
  context.svc = await startPerCore();
});

test.after(async (context) => {
  await context.svc.server.shutdown();
});

const A_TO_B = [
  { scenarioName: 'order', requiredScenarioState: 'Started', newScenarioState: 'B', responses: [{ is: { body: 'first' } }] },
  { scenarioName: 'order', requiredScenarioState: 'B', responses: [{ is: { body: 'later' } }] },
  { responses: [{ is: { body: 'none' } }] },
];

async function imposter(svc: PerCoreServer, stubs: unknown[], port?: number): Promise<number> {
  const at = port ?? (await freePort());
  const res = await svc.admin('POST', '/imposters', { port: at, protocol: 'http', stubs });
  assert.is(res.status, 201, JSON.stringify(res.json));
  return at;
}

async function state(svc: PerCoreServer, port: number): Promise<unknown> {
  return ((await svc.admin('GET', `/imposters/${port}/scenarios`)).json as { scenarios: Array<{ state: string }> }).scenarios[0]?.state;
}

test('an engine thread gates and moves an in-memory scenario while the main thread is blocked', async ({ svc }) => {
  const port = await imposter(svc, A_TO_B);
  const answers = askWhileMainBlocked(port, [{}, {}, {}]);
  assert.equal(
    answers.map((answer) => answer.error ?? text(answer)),
    ['first', 'later', 'later'],
  );
  // The owner reads the same state: admin, and the flow store's listing of the reserved key.
  assert.is(await state(svc, port), 'B');
  const listed = await svc.admin('GET', `/admin/imposters/${port}/flow-state/${port}`);
  assert.equal((listed.json as { values: Record<string, unknown> }).values, { '__scenario:order': 'B' });
});

test('admin PUT and reset of a scenario state are seen by engine threads on the next request, a new state name too', async ({ svc }) => {
  const port = await imposter(svc, A_TO_B);
  assert.is((await svc.admin('PUT', `/imposters/${port}/scenarios/order/state`, { state: 'B' })).status, 200);
  assert.equal(askWhileMainBlocked(port, [{}]).map(text), ['later']);
  assert.is((await svc.admin('POST', `/imposters/${port}/scenarios/reset`, {})).status, 200);
  assert.equal(askWhileMainBlocked(port, [{}, {}]).map(text), ['first', 'later']);
  // A state no stub names: engine threads learn it with a new plan, posted before the PUT is answered.
  assert.is((await svc.admin('PUT', `/imposters/${port}/scenarios/order/state`, { state: 'Elsewhere' })).status, 200);
  const answers = askWhileMainBlocked(port, [{}]);
  assert.equal(
    answers.map((answer) => answer.error ?? text(answer)),
    ['none'],
  );
  assert.is(await state(svc, port), 'Elsewhere');
});

test('a flow-state write of the reserved key is a scenario state engine threads gate on', async ({ svc }) => {
  const port = await imposter(svc, A_TO_B);
  const put = await svc.admin('PUT', `/admin/imposters/${port}/flow-state/${port}/__scenario:order`, { value: 'B' });
  assert.is(put.status, 200, JSON.stringify(put.json));
  assert.equal(askWhileMainBlocked(port, [{}]).map(text), ['later']);
  // A value that is not a state name reads as Started; engine threads ask the owner for it (it answers once unblocked).
  assert.is((await svc.admin('PUT', `/admin/imposters/${port}/flow-state/${port}/__scenario:order`, { value: 7 })).status, 200);
  assert.is((await http('GET', `http://127.0.0.1:${port}/`)).body, 'first');
  assert.is(await state(svc, port), 'B');
  assert.is((await svc.admin('DELETE', `/admin/imposters/${port}/flow-state/${port}`)).status, 200);
  assert.equal(askWhileMainBlocked(port, [{}]).map(text), ['first']);
});

test('deleting and recreating the imposter starts its scenarios over on engine threads', async ({ svc }) => {
  const port = await imposter(svc, A_TO_B);
  assert.equal(askWhileMainBlocked(port, [{}]).map(text), ['first']);
  assert.is(await state(svc, port), 'B');
  assert.is((await svc.admin('DELETE', `/imposters/${port}`)).status, 200);
  await imposter(svc, A_TO_B, port);
  assert.is(await state(svc, port), 'Started');
  assert.equal(askWhileMainBlocked(port, [{}, {}]).map(text), ['first', 'later']);
});

test('200 concurrent requests that each flip a scenario A ⇄ B across both threads: every answer is one move, none lost', async ({ svc }) => {
  const port = await imposter(svc, [
    { scenarioName: 'flip', requiredScenarioState: 'Started', newScenarioState: 'B', responses: [{ is: { body: 'toB' } }] },
    { scenarioName: 'flip', requiredScenarioState: 'B', newScenarioState: 'Started', responses: [{ is: { body: 'toA' } }] },
  ]);
  await scenarioBurstsOnBothThreads(svc, port, async (bodies) => {
    // Moves alternate from Started: as many to B as back (even), or one more (odd), and the state says which.
    const toB = bodies.filter((body) => body === 'toB').length;
    const toA = bodies.filter((body) => body === 'toA').length;
    assert.is(toB + toA, 200);
    assert.is(toB - toA, 0, `${toB} moves to B, ${toA} back`);
    assert.is(await state(svc, port), 'Started');
  });
});

test.run();

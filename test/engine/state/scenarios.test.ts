import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';

const test = suite('scenarios (docs/imposters.md rule 5, §3, §4.6)');
const svc = inProcessForSuite(test);

const text = (body: string) => [{ is: { statusCode: 200, body } }];

/** An order that moves Started -> Paid -> Shipped, one request at a time. */
const orderStubs = [
  {
    scenarioName: 'order',
    requiredScenarioState: 'Started',
    newScenarioState: 'Paid',
    predicates: [{ equals: { path: '/order' } }],
    responses: text('created'),
  },
  { scenarioName: 'order', requiredScenarioState: 'Paid', newScenarioState: 'Shipped', predicates: [{ equals: { path: '/order' } }], responses: text('paid') },
  { scenarioName: 'order', requiredScenarioState: 'Shipped', predicates: [{ equals: { path: '/order' } }], responses: text('shipped') },
];

async function bodies(port: number, count: number, headers: Record<string, string> = {}): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push((await call(port, 'GET', '/order', { headers })).body);
  return out;
}

test('a three-state scenario is driven by requests and listed with its state', async () => {
  const port = await svc.createImposter({ stubs: orderStubs });
  const before = await svc.admin('GET', `/imposters/${port}/scenarios`);
  assert.is(before.status, 200);
  assert.equal(before.json, { flowId: String(port), scenarios: [{ name: 'order', state: 'Started' }] }, 'initial state is Started');
  assert.equal(await bodies(port, 4), ['created', 'paid', 'shipped', 'shipped'], 'the last state has no newScenarioState and stays');
  const after = await svc.admin('GET', `/imposters/${port}/scenarios`);
  assert.equal(after.json.scenarios, [{ name: 'order', state: 'Shipped' }]);
});

test('snake_case state fields work and read back as written (replayable too)', async () => {
  const stubs = [
    { scenarioName: 's', required_scenario_state: 'Started', new_scenario_state: 'Two', responses: text('one') },
    { scenarioName: 's', required_scenario_state: 'Two', responses: text('two') },
  ];
  const port = await svc.createImposter({ stubs });
  assert.is((await call(port, 'GET', '/')).body, 'one');
  assert.is((await call(port, 'GET', '/')).body, 'two');
  const replayable = await svc.admin('GET', `/imposters/${port}?replayable=true`);
  const saved = replayable.json.stubs.map(({ id: _id, ...rest }: Record<string, unknown>) => rest);
  assert.equal(saved, stubs);
  const posted = await svc.admin('PUT', '/imposters', { imposters: [replayable.json] });
  assert.is(posted.status, 200, JSON.stringify(posted.json));
});

test('flows advance independently (flowIdSource header:X-Flow), the header-less default flow too', async () => {
  const port = await svc.createImposter({ _svc: { flowState: { flowIdSource: 'header:X-Flow' } }, stubs: orderStubs });
  assert.equal(await bodies(port, 2, { 'X-Flow': 'a' }), ['created', 'paid']);
  assert.equal(await bodies(port, 1, { 'X-Flow': 'b' }), ['created']);
  assert.equal(await bodies(port, 1, { 'x-flow': 'a' }), ['shipped'], 'header name is case-insensitive');
  assert.equal(await bodies(port, 1, { 'X-Flow': 'b' }), ['paid']);
  assert.equal(await bodies(port, 1), ['created'], 'no header: the port is the flow');
  const states = async (query: string) => (await svc.admin('GET', `/imposters/${port}/scenarios${query}`)).json;
  assert.equal(await states('?flowId=a'), { flowId: 'a', scenarios: [{ name: 'order', state: 'Shipped' }] });
  assert.equal(await states('?flowId=b'), { flowId: 'b', scenarios: [{ name: 'order', state: 'Shipped' }] });
  assert.equal(await states(''), { flowId: String(port), scenarios: [{ name: 'order', state: 'Paid' }] });
  assert.equal(await states('?flowId=never'), { flowId: 'never', scenarios: [{ name: 'order', state: 'Started' }] });
});

test('admin set, reset and list per flow', async () => {
  const port = await svc.createImposter({ _svc: { flowState: { flowIdSource: 'header:X-Flow' } }, stubs: orderStubs });
  const set = await svc.admin('PUT', `/imposters/${port}/scenarios/order/state`, { state: 'Shipped', flowId: 'a' });
  assert.is(set.status, 200);
  assert.equal(set.json, { flowId: 'a', name: 'order', state: 'Shipped' });
  assert.equal(await bodies(port, 1, { 'X-Flow': 'a' }), ['shipped']);
  assert.equal(await bodies(port, 1, { 'X-Flow': 'b' }), ['created'], 'another flow is untouched');

  const setDefault = await svc.admin('PUT', `/imposters/${port}/scenarios/order/state`, { state: 'Paid' });
  assert.equal(setDefault.json, { flowId: String(port), name: 'order', state: 'Paid' });
  assert.equal(await bodies(port, 1), ['paid']);

  const reset = await svc.admin('POST', `/imposters/${port}/scenarios/reset`, { flowId: 'a' });
  assert.is(reset.status, 200);
  assert.equal(reset.json, { flowId: 'a', reset: true });
  assert.equal(await bodies(port, 1, { 'X-Flow': 'a' }), ['created']);
  const b = await svc.admin('GET', `/imposters/${port}/scenarios?flowId=b`);
  assert.equal(b.json.scenarios, [{ name: 'order', state: 'Paid' }], 'reset of flow a leaves flow b');

  const resetDefault = await svc.admin('POST', `/imposters/${port}/scenarios/reset`);
  assert.equal(resetDefault.json, { flowId: String(port), reset: true });
  const def = await svc.admin('GET', `/imposters/${port}/scenarios`);
  assert.equal(def.json.scenarios, [{ name: 'order', state: 'Started' }]);
});

test('a stub with newScenarioState and no required state moves the scenario from any state', async () => {
  const port = await svc.createImposter({
    stubs: [
      { scenarioName: 'cart', newScenarioState: 'Empty', predicates: [{ equals: { method: 'DELETE' } }], responses: text('cleared') },
      { scenarioName: 'cart', requiredScenarioState: 'Empty', responses: text('empty') },
      { responses: text('full') },
    ],
  });
  assert.is((await call(port, 'GET', '/')).body, 'full');
  assert.is((await call(port, 'DELETE', '/')).body, 'cleared');
  assert.is((await call(port, 'GET', '/')).body, 'empty');
  const listed = await svc.admin('GET', `/imposters/${port}/scenarios`);
  assert.equal(listed.json.scenarios, [{ name: 'cart', state: 'Empty' }]);
});

test('several scenarios are listed in declaration order', async () => {
  const port = await svc.createImposter({
    stubs: [
      { scenarioName: 'b', requiredScenarioState: 'Started', responses: text('b') },
      { scenarioName: 'a', requiredScenarioState: 'Started', responses: text('a') },
      { scenarioName: 'b', requiredScenarioState: 'Other', responses: text('b2') },
    ],
  });
  await svc.admin('PUT', `/imposters/${port}/scenarios/a/state`, { state: 'X' });
  const listed = await svc.admin('GET', `/imposters/${port}/scenarios`);
  assert.equal(listed.json.scenarios, [
    { name: 'b', state: 'Started' },
    { name: 'a', state: 'X' },
  ]);
});

test('tried reasons: skippedScenarioState in recorded matchOutcome', async () => {
  const port = await svc.createImposter({
    recordRequests: true,
    stubs: [
      { id: 'paid', scenarioName: 'order', requiredScenarioState: 'Paid', responses: text('paid') },
      { id: 'open', predicates: [{ contains: { path: '/open' } }], responses: text('open') },
      { id: 'fallback', responses: text('fallback') },
    ],
  });
  await call(port, 'GET', '/x');
  const [entry] = (await svc.admin('GET', `/imposters/${port}/savedRequests`)).json;
  assert.equal(entry.matchOutcome, {
    matched: true,
    stubIndex: 2,
    stubId: 'fallback',
    tried: [
      { stubIndex: 0, stubId: 'paid', why: { reason: 'skippedScenarioState' } },
      { stubIndex: 1, stubId: 'open', why: { reason: 'failedPredicate', predicateIndex: 0 } },
    ],
  });
});

test('validation: scenario fields at create, and the state PUT', async () => {
  const bad = async (stub: Record<string, unknown>, pattern: RegExp) => {
    const res = await svc.admin('POST', '/imposters', { protocol: 'http', stubs: [{ responses: text('x'), ...stub }] });
    assert.is(res.status, 400, JSON.stringify(stub));
    assert.is(res.json.errors[0].code, 'bad data');
    assert.match(res.json.errors[0].message, pattern);
  };
  await bad({ scenarioName: 3 }, /'scenarioName' must be a non-empty string/);
  await bad({ scenarioName: 's', requiredScenarioState: true }, /'requiredScenarioState' must be a non-empty string/);
  await bad({ scenarioName: 's', new_scenario_state: {} }, /'new_scenario_state' must be a non-empty string/);
  await bad({ space: '' }, /'space' must be a non-empty string/);
  await bad({ requiredScenarioState: 'Started' }, /needs 'scenarioName'/);
  await bad({ scenarioName: 's', newScenarioState: 'A', new_scenario_state: 'B' }, /must agree/);

  const nulls = await svc.admin('POST', '/imposters', { protocol: 'http', stubs: [{ responses: text('x'), scenarioName: null, space: null }] });
  assert.is(nulls.status, 201, 'null reads as absent, like other optional fields');
  assert.is(nulls.json.stubs[0].scenarioName, undefined);

  const port = await svc.createImposter({ stubs: orderStubs });
  for (const body of [{}, { state: 7 }, { state: '' }, { flowId: 'a' }]) {
    const res = await svc.admin('PUT', `/imposters/${port}/scenarios/order/state`, body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.match(res.json.errors[0].message, /'state'/);
  }
  const badFlow = await svc.admin('PUT', `/imposters/${port}/scenarios/order/state`, { state: 'Paid', flowId: 5 });
  assert.is(badFlow.status, 400);
  const badReset = await svc.admin('POST', `/imposters/${port}/scenarios/reset`, { flowId: [] });
  assert.is(badReset.status, 400);
  const badJson = await svc.admin('PUT', `/imposters/${port}/scenarios/order/state`, '{nope');
  assert.is(badJson.status, 400);
});

test('404 for an unknown imposter on every scenario route', async () => {
  for (const [method, path, body] of [
    ['GET', '/imposters/1/scenarios', undefined],
    ['PUT', '/imposters/1/scenarios/x/state', { state: 'A' }],
    ['POST', '/imposters/1/scenarios/reset', {}],
  ] as const) {
    const res = await svc.admin(method, path, body);
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.json.errors[0].code, 'no such resource');
  }
});

test('scenario state survives stub edits and goes with its imposter', async () => {
  const port = await svc.createImposter({ stubs: orderStubs });
  assert.equal(await bodies(port, 1), ['created']);
  const added = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { predicates: [{ equals: { path: '/other' } }], responses: text('other') } });
  assert.is(added.status, 200);
  assert.equal(await bodies(port, 1), ['paid'], 'adding a stub keeps the flow state');
  await svc.admin('DELETE', `/imposters/${port}`);
  await svc.createImposter({ port, stubs: orderStubs });
  assert.equal(await bodies(port, 1), ['created'], 'a re-created imposter starts over');
});

test('an imposter created without scenarios gains state when scenario stubs are added later', async () => {
  const port = await svc.createImposter({ stubs: [] });
  const put = await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: orderStubs });
  assert.is(put.status, 200);
  assert.equal(await bodies(port, 3), ['created', 'paid', 'shipped']);
});

test("concurrent requests of one flow each see the previous one's move", async () => {
  const port = await svc.createImposter({ stubs: orderStubs });
  const answers = await Promise.all([0, 1, 2].map(() => call(port, 'GET', '/order')));
  assert.equal(answers.map((a) => a.body).sort(), ['created', 'paid', 'shipped']);
});

test('debug mode matches as a request would (flow, space, state) and moves nothing', async () => {
  const port = await svc.createImposter({
    _svc: { flowState: { flowIdSource: 'header:X-Flow' } },
    stubs: [{ id: 'a-only', space: 'a', responses: text('a') }, ...orderStubs],
  });
  const debug = async (flow: string) => {
    const res = await call(port, 'GET', '/order', { headers: { 'X-Flow': flow, 'X-Svc-Debug': 'true' } });
    return JSON.parse(res.body).matchResult;
  };
  assert.equal([(await debug('a')).stubIndex, (await debug('a')).stubId], [0, 'a-only']);
  assert.is((await debug('b')).stubIndex, 1);
  assert.is((await debug('b')).stubIndex, 1, 'a debug request does not move the scenario');
  assert.equal(await bodies(port, 1, { 'X-Flow': 'b' }), ['created']);
  assert.is((await debug('b')).stubIndex, 2, 'it sees the state a real request moved');
});

test('stub warnings: states of one scenario are not duplicates of each other', async () => {
  const port = await svc.createImposter({
    stubs: [
      { scenarioName: 's', requiredScenarioState: 'Started', predicates: [{ equals: { path: '/a' } }], responses: text('1') },
      { scenarioName: 's', required_scenario_state: 'Two', predicates: [{ equals: { path: '/a' } }], responses: text('2') },
      { predicates: [{ equals: { path: '/a' } }], responses: text('3') },
      { predicates: [{ equals: { path: '/a' } }], responses: text('4') },
    ],
  });
  const detail = await svc.admin('GET', `/imposters/${port}`);
  const warnings = detail.json._svc.warnings as Array<{ warningType: string; stubIndex: number }>;
  assert.equal(
    warnings.filter((w) => w.warningType === 'exact_duplicate').map((w) => w.stubIndex),
    [3],
    'only the plain repeat is a duplicate',
  );
  const shadowed = warnings.filter((w) => w.warningType === 'potentially_shadowed').map((w) => w.stubIndex);
  assert.not.ok(shadowed.includes(1), 'another state of the same scenario (snake_case spelling) never competes with stub 0');
});

test.run();

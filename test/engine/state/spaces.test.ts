import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';
import type { LifecycleAction } from '../../../engine/manager/index.js';

const test = suite('spaces (docs/imposters.md rule 5, §3, §4.7)');
const svc = inProcessForSuite(test);
let port: number;

const text = (body: string, statusCode = 200) => [{ is: { statusCode, body } }];
const flowed = { _svc: { flowState: { flowIdSource: 'header:X-Flow' } } };
const as = (flow: string | undefined, path = '/price') => call(port, 'GET', path, { headers: flow === undefined ? {} : { 'X-Flow': flow } });

test.before.each(async () => {
  port = await svc.createImposter({
    ...flowed,
    recordRequests: true,
    defaultResponse: { statusCode: 404, body: 'default' },
    stubs: [
      { id: 'shared-price', predicates: [{ equals: { path: '/price' } }], responses: text('shared price') },
      { id: 'shared-all', responses: text('shared catch-all') },
    ],
  });
});

test('add, list and get a space; its stubs serve only its flow and go before the shared stubs', async () => {
  const added = await svc.admin('POST', `/imposters/${port}/spaces/tenant-a/stubs`, {
    id: 'a-price',
    predicates: [{ equals: { path: '/price' } }],
    responses: text('a price'),
  });
  assert.is(added.status, 201, JSON.stringify(added.json));
  assert.equal(added.json, {
    space: 'tenant-a',
    stubs: [{ id: 'a-price', predicates: [{ equals: { path: '/price' } }], responses: text('a price'), space: 'tenant-a' }],
  });

  assert.is((await as('tenant-a')).body, 'a price');
  assert.is((await as('tenant-b')).body, 'shared price', 'another flow never sees the space');
  assert.is((await as(undefined)).body, 'shared price', 'nor does the default flow');
  assert.is((await as('tenant-a', '/other')).body, 'shared catch-all', 'what the space does not match falls through to the shared stubs');

  const second = await svc.admin('POST', `/imposters/${port}/spaces/tenant-a/stubs`, { predicates: [{ equals: { path: '/x' } }], responses: text('a x') });
  assert.is(second.status, 201);
  assert.equal(
    second.json.stubs.map((s: { responses: Array<{ is: { body: string } }> }) => s.responses[0]!.is.body),
    ['a price', 'a x'],
    'in the order added',
  );
  assert.type(second.json.stubs[1].id, 'string', 'the HTTP path generates an id');
  await svc.admin('POST', `/imposters/${port}/spaces/tenant-b/stubs`, { responses: text('b everything') });

  const all = (await svc.admin('GET', `/imposters/${port}`)).json.stubs.map((s: { space?: string; id: string }) => s.space ?? s.id);
  assert.equal(all, ['tenant-a', 'tenant-a', 'tenant-b', 'shared-price', 'shared-all'], 'space stubs first, each space in add order');

  const listed = await svc.admin('GET', `/imposters/${port}/spaces/tenant-a/stubs`);
  assert.is(listed.status, 200);
  assert.equal(listed.json, second.json);
  const detail = await svc.admin('GET', `/imposters/${port}/spaces/tenant-a`);
  assert.is(detail.status, 200);
  assert.equal(detail.json, { ...second.json, scenarios: [], numberOfRequests: 2 }, 'the two recorded tenant-a requests');
  const empty = await svc.admin('GET', `/imposters/${port}/spaces/nobody`);
  assert.equal(empty.json, { space: 'nobody', stubs: [], scenarios: [], numberOfRequests: 0 });
  const portSpace = await svc.admin('GET', `/imposters/${port}/spaces/${port}`);
  assert.is(
    portSpace.json.numberOfRequests,
    0,
    'a header-less request has no flow id for the polling filters (docs/metrics-and-events.md), as savedRequests?match=flow_id= counts it',
  );
  const polled = await svc.admin('GET', `/imposters/${port}/savedRequests?match=flow_id=${port}`);
  assert.is(polled.json.length, 0);
});

test('{} and {predicates: []} are a space-wide default: the flow gets the default response, not the shared stubs', async () => {
  for (const [flow, body] of [
    ['quiet', {}],
    ['silent', { predicates: [] }],
  ] as const) {
    const res = await svc.admin('POST', `/imposters/${port}/spaces/${flow}/stubs`, body);
    assert.is(res.status, 201, JSON.stringify(res.json));
    assert.equal(res.json.stubs[0].responses, [{ is: {} }]);
    const answer = await as(flow, '/anything');
    assert.is(answer.status, 404);
    assert.is(answer.body, 'default');
  }
  assert.is((await as('loud', '/anything')).body, 'shared catch-all');
  const warnings = (await svc.admin('GET', `/imposters/${port}`)).json._svc.warnings as Array<{ warningType: string; stubIndex: number }>;
  assert.equal(
    warnings.filter((w) => w.warningType === 'catch_all_not_last'),
    [],
    'a space catch-all does not hide the shared stubs from other flows',
  );
  assert.ok(
    warnings.some((w) => w.warningType === 'catch_all' && w.stubIndex === 0),
    'it is still a catch-all',
  );
});

test('stub warnings: a space overriding a shared stub is not a shadow; a shared stub hiding a space stub is', async () => {
  await svc.admin('POST', `/imposters/${port}/spaces/a/stubs`, { predicates: [{ equals: { path: '/price' } }], responses: text('a price') });
  const shadowed = async (at: number) =>
    ((await svc.admin('GET', `/imposters/${at}`)).json._svc.warnings as Array<{ warningType: string; stubIndex: number; shadowedByIndex?: number }>)
      .filter((w) => w.warningType === 'potentially_shadowed')
      .map((w) => [w.stubIndex, w.shadowedByIndex]);
  assert.equal(await shadowed(port), [], 'the shared /price stub still answers every other flow');
  const hidden = await svc.createImposter({
    stubs: [
      { predicates: [{ equals: { path: '/price' } }], responses: text('shared') },
      { space: 'a', predicates: [{ equals: { path: '/price' } }, { equals: { method: 'GET' } }], responses: text('never') },
    ],
  });
  assert.equal(await shadowed(hidden), [[1, 0]]);
});

test('delete tears down the space: its stubs, its recorded requests and its scenario state', async () => {
  await svc.admin('POST', `/imposters/${port}/spaces/a/stubs`, {
    scenarioName: 'login',
    requiredScenarioState: 'Started',
    newScenarioState: 'In',
    predicates: [{ equals: { path: '/login' } }],
    responses: text('welcome'),
  });
  await svc.admin('POST', `/imposters/${port}/spaces/a/stubs`, {
    scenarioName: 'login',
    requiredScenarioState: 'In',
    predicates: [{ equals: { path: '/login' } }],
    responses: text('again'),
  });
  await svc.admin('POST', `/imposters/${port}/spaces/b/stubs`, { predicates: [{ equals: { path: '/b' } }], responses: text('b') });
  assert.is((await as('a', '/login')).body, 'welcome');
  assert.is((await as('a', '/login')).body, 'again');
  await as('b', '/b');
  await as(undefined);
  const before = await svc.admin('GET', `/imposters/${port}/spaces/a`);
  assert.equal(before.json.scenarios, [{ name: 'login', state: 'In' }]);
  assert.is(before.json.numberOfRequests, 2);

  const torn = await svc.admin('DELETE', `/imposters/${port}/spaces/a`);
  assert.is(torn.status, 200);
  assert.equal(torn.json, { space: 'a', tornDown: true });
  assert.is((await as('a', '/login')).body, 'shared catch-all', 'its stubs are gone');
  const after = await svc.admin('GET', `/imposters/${port}/spaces/a`);
  assert.equal(after.json, { space: 'a', stubs: [], scenarios: [], numberOfRequests: 1 }, 'only the request made after the tear-down');
  const flows = (await svc.admin('GET', `/imposters/${port}/savedRequests`)).json.map((r: { headers: Record<string, string> }) => r.headers['X-Flow'] ?? '-');
  assert.equal(flows, ['b', '-', 'a'], 'other flows keep their requests');
  assert.is((await svc.admin('GET', `/imposters/${port}/spaces/b/stubs`)).json.stubs.length, 1, 'other spaces keep their stubs');

  await svc.admin('POST', `/imposters/${port}/spaces/a/stubs`, {
    scenarioName: 'login',
    requiredScenarioState: 'Started',
    predicates: [{ equals: { path: '/login' } }],
    responses: text('fresh'),
  });
  assert.is((await as('a', '/login')).body, 'fresh', 'the scenario state went with the space');
  const again = await svc.admin('DELETE', `/imposters/${port}/spaces/never-there`);
  assert.equal(again.json, { space: 'never-there', tornDown: true }, 'idempotent');
});

test('tried reasons: skippedSpace in recorded matchOutcome', async () => {
  await svc.admin('POST', `/imposters/${port}/spaces/a/stubs`, { id: 'a-all', responses: text('a') });
  await as('z', '/other');
  const entries = (await svc.admin('GET', `/imposters/${port}/savedRequests`)).json;
  assert.equal(entries.at(-1).matchOutcome, {
    matched: true,
    stubIndex: 2,
    stubId: 'shared-all',
    tried: [
      { stubIndex: 0, stubId: 'a-all', why: { reason: 'skippedSpace' } },
      { stubIndex: 1, stubId: 'shared-price', why: { reason: 'failedPredicate', predicateIndex: 0 } },
    ],
  });
});

test('400s: not an object, the {stub} envelope, no stub field, a bad stub; 404 unknown imposter', async () => {
  const post = (body: unknown) => svc.admin('POST', `/imposters/${port}/spaces/a/stubs`, body);
  const envelope = await post({ stub: { responses: text('x') } });
  assert.is(envelope.status, 400);
  assert.match(envelope.json.errors[0].message, /bare stub, not the \{"stub": \.\.\.\} envelope/);
  const stranger = await post({ response: text('x') });
  assert.is(stranger.status, 400);
  assert.match(stranger.json.errors[0].message, /none of the stub fields/);
  for (const body of [[], '"text"', 3]) {
    const res = await post(body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.match(res.json.errors[0].message, /JSON object/);
  }
  const invalid = await post({ predicates: [{ equals: { path: '/x' } }], responses: [] });
  assert.is(invalid.status, 400);
  assert.match(invalid.json.errors[0].message, /'responses' must be a non-empty array/);
  const badJson = await post('{oops');
  assert.is(badJson.status, 400);
  assert.is(badJson.json.errors[0].code, 'invalid JSON');
  assert.is((await svc.admin('GET', `/imposters/${port}/spaces/a/stubs`)).json.stubs.length, 0, 'nothing was added');

  for (const [method, path, body] of [
    ['POST', '/imposters/1/spaces/a/stubs', { responses: text('x') }],
    ['GET', '/imposters/1/spaces/a/stubs', undefined],
    ['GET', '/imposters/1/spaces/a', undefined],
    ['DELETE', '/imposters/1/spaces/a', undefined],
  ] as const) {
    const res = await svc.admin(method, path, body);
    assert.is(res.status, 404, `${method} ${path}`);
  }
});

test('a space given in the body is overridden by the path; the flow id may need URL encoding', async () => {
  const res = await svc.admin('POST', `/imposters/${port}/spaces/${encodeURIComponent('team/1')}/stubs`, { space: 'other', responses: text('team') });
  assert.is(res.status, 201);
  assert.is(res.json.space, 'team/1');
  assert.is(res.json.stubs[0].space, 'team/1');
  assert.is((await as('team/1')).body, 'team');
});

test('space changes are stubsChanged lifecycle events; replayable output keeps space stubs', async () => {
  const seen: Array<[LifecycleAction, number | null]> = [];
  const stop = svc.manager.observe({ onLifecycle: (action, at) => seen.push([action, at]) });
  try {
    await svc.admin('POST', `/imposters/${port}/spaces/a/stubs`, { responses: text('a') });
    await svc.admin('DELETE', `/imposters/${port}/spaces/a`);
    await svc.admin('DELETE', `/imposters/${port}/spaces/a`);
  } finally {
    stop();
  }
  assert.equal(
    seen,
    [
      ['stubsChanged', port],
      ['stubsChanged', port],
    ],
    'a tear-down with no stubs changes nothing',
  );

  await svc.admin('POST', `/imposters/${port}/spaces/a/stubs`, { id: 'kept', responses: text('a') });
  const saved = (await svc.admin('GET', `/imposters/${port}?replayable=true`)).json;
  assert.equal(saved.stubs[0], { id: 'kept', responses: text('a'), space: 'a' });
  await svc.admin('DELETE', `/imposters/${port}`);
  const again = await svc.admin('POST', '/imposters', saved);
  assert.is(again.status, 201);
  assert.is((await as('a')).body, 'a');
  assert.is((await as('b')).body, 'shared price');
});

test('spaces work with the port as flow id when no header source is configured', async () => {
  const plain = await svc.createImposter({ stubs: [{ responses: text('shared') }] });
  await svc.admin('POST', `/imposters/${plain}/spaces/${plain}/stubs`, { responses: text('own') });
  assert.is((await call(plain, 'GET', '/')).body, 'own');
  const other = await svc.admin('POST', `/imposters/${plain}/spaces/elsewhere/stubs`, { responses: text('never') });
  assert.is(other.status, 201);
  assert.is((await call(plain, 'GET', '/')).body, 'own');
});

test.run();

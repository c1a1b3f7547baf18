/**
 * The dashboard's server reads (issue 21): the near-miss explanation (expected and actual values per
 * failing field, closest stub first, gated stubs marked) for a recorded request and for a test request
 * that is neither recorded nor counted; the journal read with indexes and flow ids; the access probe.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite } from '../../support/in-process.js';
import { http } from '../../support/servers.js';

const test = suite('dashboard: explain and journal routes');
const svc = inProcessForSuite(test);

const stubs = [
  { id: 'health', predicates: [{ equals: { path: '/health', method: 'GET' } }], responses: [{ is: { body: 'up' } }] },
  {
    id: 'order',
    predicates: [{ equals: { method: 'POST' } }, { contains: { body: 'sku' } }, { equals: { query: { q: '1' } } }],
    responses: [{ is: { statusCode: 201 } }],
  },
  { id: 'json', predicates: [{ equals: { body: 'x' }, jsonpath: { selector: '$.a' } }], responses: [{ is: {} }] },
  { id: 'not-post', predicates: [{ not: { equals: { method: 'POST' } } }], responses: [{ is: {} }] },
  { id: 'either', predicates: [{ or: [{ startsWith: { path: '/v1' } }, { exists: { headers: { 'X-Key': true } } }] }], responses: [{ is: {} }] },
];

test('a recorded miss is explained per stub, closest first, with expected and actual values', async () => {
  const port = await svc.createImposter({ recordRequests: true, stubs });
  await http('POST', `http://127.0.0.1:${port}/orders?q=2`, { body: '{"a":"y"}' });
  const res = await svc.admin('POST', `/_dashboard/api/imposters/${port}/explain`, { index: 1 });
  assert.is(res.status, 200, res.body);
  const result = res.json.matchResult;
  assert.is(result.matched, false);
  assert.equal(
    result.candidates.map((c: { id: string; satisfied: number; total: number }) => `${c.id} ${c.satisfied}/${c.total}`),
    ['order 1/3', 'health 0/1', 'json 0/1', 'not-post 0/1', 'either 0/1'],
  );
  const order = result.candidates[0];
  assert.equal(order.failed, [
    { index: 1, passed: false, mismatches: [{ operator: 'contains', field: 'body', expected: 'sku', actual: '{"a":"y"}' }] },
    { index: 2, passed: false, mismatches: [{ operator: 'equals', field: 'query.q', expected: '1', actual: '2' }] },
  ]);
  assert.equal(result.candidates[1].failed[0].mismatches, [
    { operator: 'equals', field: 'path', expected: '/health', actual: '/orders' },
    { operator: 'equals', field: 'method', expected: 'GET', actual: 'POST' },
  ]);
  assert.equal(result.candidates[2].failed[0].mismatches, [
    { operator: 'equals', field: 'body', expected: 'x', actual: '{"a":"y"}', selector: 'jsonpath $.a', selected: 'y' },
  ]);
  assert.equal(result.candidates[3].failed[0].mismatches, [{ operator: 'not equals', field: 'method', expected: 'POST', actual: 'POST' }]);
  assert.equal(result.candidates[4].failed[0].mismatches, [
    { operator: 'startsWith', field: 'path', expected: '/v1', actual: '/orders' },
    { operator: 'exists', field: 'headers.X-Key', expected: true },
  ]);
  assert.is((await svc.admin('POST', `/_dashboard/api/imposters/${port}/explain`, { index: 9 })).status, 404);
});

test('a test request is explained like a real one but neither recorded nor counted', async () => {
  const port = await svc.createImposter({ recordRequests: true, stubs });
  const before = (await svc.admin('GET', `/imposters/${port}`)).json.numberOfRequests;
  const hit = await svc.admin('POST', `/_dashboard/api/imposters/${port}/explain`, {
    method: 'post',
    url: '/orders?q=1',
    headers: { 'Content-Type': 'text/plain' },
    body: 'sku=1',
  });
  assert.is(hit.json.debug, true);
  assert.equal(
    { matched: hit.json.matchResult.matched, stubIndex: hit.json.matchResult.stubIndex, stubId: hit.json.matchResult.stubId },
    { matched: true, stubIndex: 1, stubId: 'order' },
  );
  assert.equal(
    hit.json.matchResult.candidates.map((c: { id: string }) => c.id),
    ['health'],
    'for a match: the stubs before it that failed',
  );
  assert.is(hit.json.matchResult.responsePreview.statusCode, 201);
  const after = await svc.admin('GET', `/imposters/${port}`);
  assert.is(after.json.numberOfRequests, before);
  assert.is(after.json.requests.length, 0);
});

test('a stub gated out by its scenario state keeps its verdicts and says why it was skipped', async () => {
  const port = await svc.createImposter({
    stubs: [{ id: 'later', scenarioName: 's', requiredScenarioState: 'paid', predicates: [{ equals: { path: '/pay' } }], responses: [{ is: {} }] }],
  });
  const res = await svc.admin('POST', `/_dashboard/api/imposters/${port}/explain`, { method: 'GET', url: '/pay' });
  assert.is(res.json.matchResult.matched, false);
  assert.equal(res.json.matchResult.candidates, [{ index: 0, id: 'later', eligibility: 'skippedScenarioState', satisfied: 1, total: 1, failed: [] }]);
});

test('the journal read carries each entry with its index and flow id, in full or as a summary', async () => {
  const port = await svc.createImposter({ recordRequests: true, stubs });
  await http('GET', `http://127.0.0.1:${port}/health?a=1&a=2`);
  await http('POST', `http://127.0.0.1:${port}/nothing`);
  const full = await svc.admin('GET', `/_dashboard/api/imposters/${port}/requests?since=1`);
  assert.equal({ nextIndex: full.json.nextIndex, numberOfRequests: full.json.numberOfRequests }, { nextIndex: 2, numberOfRequests: 2 });
  assert.is(full.json.entries.length, 1);
  assert.is(full.json.entries[0].index, 2);
  assert.is(full.json.entries[0].flowId, String(port));
  assert.ok(full.json.entries[0].request.headers, 'the whole entry');
  const brief = await svc.admin('GET', `/_dashboard/api/imposters/${port}/requests?since=0&fields=summary`);
  const first = brief.json.entries[0].request;
  assert.is(first.query, 'a=1&a=2');
  assert.is(first.headers, undefined);
  assert.equal(first.matchOutcome, { matched: true, stubIndex: 0, stubId: 'health' });
  const one = await svc.admin('GET', `/_dashboard/api/imposters/${port}/requests/2`);
  assert.is(one.json.request.path, '/nothing');
  assert.is(one.json.request.matchOutcome.matched, false);
});

test.run();

const access = suite('dashboard: access probe');
const locked = inProcessForSuite(access, { apiKey: 'sesame', keepImposters: true });

access('answers whether a key is needed and whether the one sent is good, without a 401', async () => {
  const none = await locked.admin('GET', '/_dashboard/api/access');
  assert.equal({ status: none.status, body: none.json }, { status: 200, body: { keyRequired: true, authorized: false } });
  const good = await locked.admin('GET', '/_dashboard/api/access', undefined, { Authorization: 'sesame' });
  assert.equal(good.json, { keyRequired: true, authorized: true });
  assert.is((await locked.admin('POST', '/_dashboard/api/imposters/1/explain', {})).status, 401, 'the data routes stay gated');
});

access.run();

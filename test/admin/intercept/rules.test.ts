import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RULE_CAPACITY } from '../../../admin/intercept/index.js';
import { interceptForSuite, viaProxy } from '../../support/intercept.js';

const test = suite('intercept rules: admin API, validation, capacity (docs/intercept.md, §7 429)');
const svc = interceptForSuite(test);

function many(count: number, from = 0): unknown[] {
  return Array.from({ length: count }, (_, i) => ({ match: { path: `/r${from + i}` }, serve: { body: `rule ${from + i}` } }));
}

test('POST one rule or an array: 201 with the added rules and generated ids; GET lists them in order; DELETE counts', async () => {
  await svc.startIntercept();
  const one = await svc.admin('POST', '/intercept/rules', { match: { host: 'A.Example.com', method: 'get' }, serve: { statusCode: '204' } });
  assert.is(one.status, 201, one.body);
  assert.equal(one.json, [{ id: 'rule-1', match: { host: 'a.example.com', method: 'GET' }, serve: { statusCode: 204, headers: {} } }]);
  const two = await svc.admin('POST', '/intercept/rules', [{ id: 'mine', serve: { body: { a: 1 } } }, { forward: { port: 4545, protocol: 'https' } }]);
  assert.is(two.status, 201);
  assert.equal(
    two.json.map((rule: { id: string }) => rule.id),
    ['mine', 'rule-2'],
  );
  assert.equal(two.json[0].serve, { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: { a: 1 } });
  const listed = await svc.admin('GET', '/intercept/rules');
  assert.is(listed.status, 200);
  assert.equal(
    listed.json.map((rule: { id: string }) => rule.id),
    ['rule-1', 'mine', 'rule-2'],
  );
  assert.equal(listed.json[2], { id: 'rule-2', match: {}, forward: { port: 4545, protocol: 'https' } });
  const cleared = await svc.admin('DELETE', '/intercept/rules');
  assert.is(cleared.status, 200);
  assert.equal(cleared.json, { deleted: 3 });
  assert.equal((await svc.admin('GET', '/intercept/rules')).json, []);
});

test('invalid rules are 400 and add nothing (all or none)', async () => {
  await svc.startIntercept();
  const bad: Array<[unknown, RegExp]> = [
    [{ match: { path: '/x' } }, /exactly one action/],
    [{ serve: { body: 'x' }, forward: { port: 1 } }, /exactly one action/],
    [{ forward: { port: 0 } }, /port/],
    [{ forward: { port: 80, protocol: 'ftp' } }, /protocol/],
    [{ serve: { statusCode: 99 } }, /statusCode/],
    [{ serve: { statusCode: 200, status: 201 } }, /disagree/],
    [{ serve: { headers: { 'X-A': { nested: true } } } }, /headers/],
    [{ serve: { headers: { 'Bad Name': 'x' } } }, /not a valid HTTP header/],
    [{ serve: { headers: { 'X-A': 'split\r\nX-B: injected' } } }, /not a valid HTTP header/],
    [{ match: { path: 'no-slash' }, serve: {} }, /start with/],
    [{ match: { path: '/a', pathPrefix: '/b' }, serve: {} }, /not both/],
    [{ match: { headers: { 'X-A': 1 } }, serve: {} }, /must be a string/],
    [{ match: { host: 'bad host' }, serve: {} }, /hostname/],
    [{ match: { verb: 'GET' }, serve: {} }, /unknown field 'verb'/],
    [{ serve: {}, priority: 1 }, /unknown field 'priority'/],
    ['"just a string"', /must be an object/],
    [[{ serve: {} }, { id: 'x', serve: {} }, { id: 'x', serve: {} }], /duplicate rule id 'x'/],
  ];
  for (const [body, message] of bad) {
    const res = await svc.admin('POST', '/intercept/rules', body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.match(res.json.errors[0].message, message, JSON.stringify(body));
  }
  assert.is((await svc.admin('POST', '/intercept/rules', '{oops')).status, 400, 'bad JSON');
  assert.equal((await svc.admin('GET', '/intercept/rules')).json, []);
});

test(`the store holds ${RULE_CAPACITY} rules; one more is 429 and the store is unchanged`, async () => {
  const { interceptPort } = await svc.startIntercept();
  assert.is((await svc.admin('POST', '/intercept/rules', many(RULE_CAPACITY - 1))).status, 201);
  assert.is((await svc.admin('POST', '/intercept/rules', many(1, RULE_CAPACITY - 1))).status, 201);
  const full = await svc.admin('POST', '/intercept/rules', many(1, RULE_CAPACITY));
  assert.is(full.status, 429);
  assert.is(full.json.errors[0].type, 'intercept_rules_full');
  assert.is((await svc.admin('GET', '/intercept/rules')).json.length, RULE_CAPACITY);
  assert.is((await viaProxy(interceptPort, `http://x.test/r${RULE_CAPACITY - 1}`)).body, `rule ${RULE_CAPACITY - 1}`);
  await svc.admin('DELETE', '/intercept/rules');
  assert.is((await svc.admin('POST', '/intercept/rules', many(1))).status, 201, 'clearing frees the store');
});

test('POST /intercept seeds rules; too many seeds is 429 and bad seeds 400, neither starts the proxy', async () => {
  const started = await svc.startIntercept({ rules: { match: { path: '/seeded' }, serve: { body: 'seed' } } });
  assert.is((await viaProxy(started.interceptPort, 'http://x.test/seeded')).body, 'seed');
  await svc.admin('DELETE', '/intercept');
  const over = await svc.admin('POST', '/intercept', { rules: many(RULE_CAPACITY + 1) });
  assert.is(over.status, 429);
  assert.is((await svc.admin('GET', '/intercept')).status, 404);
  const bad = await svc.admin('POST', '/intercept', { rules: [{ serve: 'no' }] });
  assert.is(bad.status, 400);
  assert.is((await svc.admin('GET', '/intercept')).status, 404);
});

test('stopping drops the rules: a new session starts empty', async () => {
  await svc.startIntercept({ rules: many(3) });
  await svc.admin('DELETE', '/intercept');
  await svc.startIntercept();
  assert.equal((await svc.admin('GET', '/intercept/rules')).json, []);
});

test.run();

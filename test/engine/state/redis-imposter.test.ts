import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';
import { startRedis, SuiteSetup, type RedisServer } from '../../support/redis-server.js';

const test = suite('state: imposters on the redis backend (real redis-server)');
const svc = inProcessForSuite(test);
let redis: RedisServer | undefined;

const setup = new SuiteSetup(async () => (redis = await startRedis()));
test.before(async () => {
  await setup.run();
});
test.after(async () => {
  await redis?.stop();
});

const path = (port: number, flow: string, key?: string) => `/admin/imposters/${port}/flow-state/${flow}${key === undefined ? '' : `/${key}`}`;
const counter = { responses: [{ is: { body: 'counted' }, _svc: { stateOps: [{ op: 'increment', key: 'n' }] } }] };

test('stateOps and the admin routes share the redis store; state survives a replacement', async () => {
  const redis = setup.get();
  const flowState = { backend: 'redis', url: redis.url, poolSize: 2, keyPrefix: 'e2e:', flowIdSource: 'header:X-Flow' };
  const port = await svc.createImposter({ _svc: { flowState }, stubs: [counter] });
  assert.is(svc.manager.require(port).flowStore.backend, 'redis');
  await call(port, 'GET', '/', { headers: { 'X-Flow': 'r1' } });
  await call(port, 'GET', '/', { headers: { 'X-Flow': 'r1' } });
  assert.equal((await svc.admin('GET', path(port, 'r1', 'n'))).json, { flowId: 'r1', key: 'n', value: 2 });
  await svc.admin('PUT', path(port, 'r1', 'doc'), { value: { a: [1] } });
  assert.equal((await svc.admin('GET', path(port, 'r1'))).json, { flowId: 'r1', values: { n: 2, doc: { a: [1] } } }, 'a flow lists its keys');
  assert.equal((await svc.admin('GET', path(port, 'r2'))).json, { flowId: 'r2', values: {} });
  const res = await svc.admin('PUT', '/imposters', { imposters: [{ port, protocol: 'http', name: 'again', _svc: { flowState }, stubs: [counter] }] });
  assert.is(res.status, 200, JSON.stringify(res.json));
  assert.equal((await svc.admin('GET', path(port, 'r1', 'doc'))).json.value, { a: [1] });
  assert.equal((await svc.admin('DELETE', path(port, 'r1'))).json, { flowId: 'r1', cleared: true });
  assert.is((await svc.admin('GET', path(port, 'r1', 'n'))).status, 404);
});

test('concurrent requests: each served response ran exactly its own stateOps', async () => {
  const redis = setup.get();
  const response = (name: string) => ({ is: { body: name }, _svc: { stateOps: [{ op: 'increment', key: name }] } });
  const port = await svc.createImposter({
    _svc: { flowState: { backend: 'redis', url: redis.url, poolSize: 4, keyPrefix: 'race:' } },
    stubs: [{ responses: [response('one'), response('two'), response('three')] }],
  });
  const bodies = (await Promise.all(Array.from({ length: 30 }, () => call(port, 'GET', '/')))).map((r) => r.body);
  for (const name of ['one', 'two', 'three']) {
    const served = bodies.filter((b) => b === name).length;
    assert.is((await svc.admin('GET', path(port, String(port), name))).json.value, served, name);
  }
});

test('an unreachable redis server fails creation with 400 and binds nothing', async () => {
  setup.get();
  const port = await freePort();
  const url = `redis://127.0.0.1:${await freePort()}`;
  const res = await svc.admin('POST', '/imposters', { port, protocol: 'http', _svc: { flowState: { backend: 'redis', url } } });
  assert.is(res.status, 400);
  assert.match(res.json.errors[0].message, /cannot use _svc.flowState: redis flow store: /);
  assert.is((await svc.admin('GET', `/imposters/${port}`)).status, 404);
});

test('a stopped redis: admin flow-state routes answer 503, stateOps requests 500, and nothing crashes', async () => {
  setup.get();
  const doomed = await startRedis();
  try {
    const port = await svc.createImposter({ _svc: { flowState: { backend: 'redis', url: doomed.url, poolSize: 1 } }, stubs: [counter] });
    assert.is((await call(port, 'GET', '/')).status, 200);
    await doomed.stop();
    for (const [method, url] of [
      ['GET', path(port, 'f', 'k')],
      ['PUT', path(port, 'f', 'k')],
      ['DELETE', path(port, 'f', 'k')],
      ['GET', path(port, 'f')],
      ['DELETE', path(port, 'f')],
    ]) {
      const res = await svc.admin(method, url, method === 'PUT' ? { value: 1 } : undefined);
      assert.is(res.status, 503, `${method} ${url}`);
      assert.match(res.json.errors[0].message, /flow store unavailable: redis flow store: /);
    }
    const served = await call(port, 'GET', '/');
    assert.is(served.status, 500);
    assert.match(JSON.parse(served.body).errors[0].message, /_svc.stateOps failed: redis flow store: /);
    assert.is((await svc.admin('GET', `/imposters/${port}`)).status, 200, 'the imposter is still there');
    assert.is((await svc.admin('DELETE', `/imposters/${port}`)).status, 200, 'and can be deleted');
  } finally {
    await doomed.stop();
  }
});

test('a stopped redis: on an imposter with scenario stubs, only requests whose matching needs the store fail (503)', async () => {
  setup.get();
  const doomed = await startRedis();
  try {
    const port = await svc.createImposter({
      _svc: { flowState: { backend: 'redis', url: doomed.url, poolSize: 1 } },
      stubs: [
        { predicates: [{ equals: { path: '/static' } }], responses: [{ is: { body: 'static' } }] },
        { scenarioName: 'order', requiredScenarioState: 'Started', newScenarioState: 'Paid', responses: [{ is: { body: 'pay' } }] },
        { responses: [{ is: { body: 'fallback' } }] },
      ],
    });
    assert.is((await call(port, 'GET', '/static')).body, 'static');
    await doomed.stop();
    const staticAnswer = await call(port, 'GET', '/static');
    assert.is(staticAnswer.status, 200, staticAnswer.body);
    assert.is(staticAnswer.body, 'static');
    const gated = await call(port, 'GET', '/pay');
    assert.is(gated.status, 503);
    assert.match(JSON.parse(gated.body).errors[0].message, /flow store unavailable: redis flow store: /);
    assert.is((await call(port, 'GET', '/static')).body, 'static', 'still answering after a 503');
  } finally {
    await doomed.stop();
  }
});

test.run();

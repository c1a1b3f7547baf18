import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startMetricsServer, type RunningMetrics } from '../../../admin/index.js';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { http } from '../../support/servers.js';
import { parseExposition } from '../../support/prom-text.js';

const test = suite('state: flow-state admin routes, stateOps, flow ids (docs/flow-state.md, §2.3, §4.4, §6)');
const svc = inProcessForSuite(test);

const is = { is: { body: 'x' } };
const headerFlow = { _svc: { flowState: { flowIdSource: 'header:X-Flow' } } };
const path = (port: number, flow: string, key?: string) =>
  `/admin/imposters/${port}/flow-state/${encodeURIComponent(flow)}${key === undefined ? '' : `/${key}`}`;

test('PUT, GET, DELETE a key and DELETE a flow answer the spec JSON', async () => {
  const port = await svc.createImposter({ _svc: { flowState: {} } });
  const put = await svc.admin('PUT', path(port, 'f1', 'cart'), { value: { items: [1, 2] } });
  assert.is(put.status, 200);
  assert.equal(put.json, { flowId: 'f1', key: 'cart', value: { items: [1, 2] } });
  const got = await svc.admin('GET', path(port, 'f1', 'cart'));
  assert.equal(got.json, { flowId: 'f1', key: 'cart', value: { items: [1, 2] } });
  await svc.admin('PUT', path(port, 'f1', 'other'), { value: null });
  assert.equal((await svc.admin('GET', path(port, 'f1', 'other'))).json, { flowId: 'f1', key: 'other', value: null });
  const deleted = await svc.admin('DELETE', path(port, 'f1', 'cart'));
  assert.equal(deleted.json, { flowId: 'f1', key: 'cart', deleted: true });
  assert.is((await svc.admin('GET', path(port, 'f1', 'cart'))).status, 404);
  const cleared = await svc.admin('DELETE', path(port, 'f1'));
  assert.equal(cleared.json, { flowId: 'f1', cleared: true });
  assert.is((await svc.admin('GET', path(port, 'f1', 'other'))).status, 404);
  const again = await svc.admin('DELETE', path(port, 'never-used'));
  assert.equal([again.status, again.json], [200, { flowId: 'never-used', cleared: true }]);
});

test('GET a flow lists its keys and values set by stateOps and PUT (svc extension); an absent flow is empty', async () => {
  const port = await svc.createImposter({
    ...headerFlow,
    stubs: [
      {
        responses: [
          {
            ...is,
            _svc: {
              stateOps: [
                { op: 'increment', key: 'hits' },
                { op: 'set', key: 'last', value: { path: '/x' } },
              ],
            },
          },
        ],
      },
    ],
  });
  await call(port, 'GET', '/x', { headers: { 'X-Flow': 'a/b' } });
  await call(port, 'GET', '/x', { headers: { 'X-Flow': 'other' } });
  await svc.admin('PUT', path(port, 'a/b', 'note'), { value: [1, 'two'] });
  const listed = await svc.admin('GET', path(port, 'a/b'));
  assert.is(listed.status, 200);
  assert.equal(listed.json, { flowId: 'a/b', values: { hits: 1, last: { path: '/x' }, note: [1, 'two'] } });
  await svc.admin('DELETE', path(port, 'a/b', 'hits'));
  assert.equal((await svc.admin('GET', path(port, 'a/b'))).json.values, { last: { path: '/x' }, note: [1, 'two'] });
  assert.equal((await svc.admin('GET', path(port, 'never-used'))).json, { flowId: 'never-used', values: {} });
  const stateless = await svc.createImposter({ stubs: [{ responses: [is] }] });
  assert.equal((await svc.admin('GET', path(stateless, String(stateless)))).json, { flowId: String(stateless), values: {} }, 'noop store');
});

test('404 for an unknown imposter or absent key; 400 for a missing value or bad JSON', async () => {
  const port = await svc.createImposter({ _svc: { flowState: {} } });
  for (const [method, url] of [
    ['GET', path(1, 'f', 'k')],
    ['PUT', path(1, 'f', 'k')],
    ['DELETE', path(1, 'f', 'k')],
    ['GET', path(1, 'f')],
    ['DELETE', path(1, 'f')],
  ]) {
    const res = await svc.admin(method, url, method === 'PUT' ? { value: 1 } : undefined);
    assert.is(res.status, 404, `${method} ${url}`);
    assert.is(res.json.errors[0].type, 'no_such_resource');
  }
  const absent = await svc.admin('GET', path(port, 'f', 'nope'));
  assert.is(absent.status, 404);
  assert.match(absent.json.errors[0].message, /no flow state key 'nope'/);
  assert.is((await svc.admin('DELETE', path(port, 'f', 'nope'))).status, 404);
  const missing = await svc.admin('PUT', path(port, 'f', 'k'), { val: 1 });
  assert.is(missing.status, 400);
  assert.match(missing.json.errors[0].message, /'value' is required/);
  const bad = await svc.admin('PUT', path(port, 'f', 'k'), '{"value":');
  assert.is(bad.status, 400);
  assert.is(bad.json.errors[0].type, 'invalid_json');
});

test('stateOps run on the flow of the request when their response is served', async () => {
  const port = await svc.createImposter({
    ...headerFlow,
    stubs: [
      {
        predicates: [{ equals: { path: '/hit' } }],
        responses: [
          {
            ...is,
            _svc: {
              stateOps: [
                { op: 'increment', key: 'hits' },
                { op: 'set', key: 'last', value: { path: '/hit' } },
              ],
            },
          },
        ],
      },
      {
        predicates: [{ equals: { path: '/down' } }],
        responses: [
          {
            ...is,
            _svc: {
              stateOps: [
                { op: 'decrement', key: 'hits', by: 5 },
                { op: 'delete', key: 'last' },
              ],
            },
          },
        ],
      },
      { predicates: [{ equals: { path: '/reset' } }], responses: [{ ...is, _svc: { stateOps: [{ op: 'clear' }] } }] },
    ],
  });
  for (let i = 0; i < 3; i += 1) assert.is((await call(port, 'GET', '/hit', { headers: { 'X-Flow': 'a' } })).status, 200);
  await call(port, 'GET', '/hit', { headers: { 'X-Flow': 'b' } });
  assert.is((await svc.admin('GET', path(port, 'a', 'hits'))).json.value, 3);
  assert.is((await svc.admin('GET', path(port, 'b', 'hits'))).json.value, 1);
  assert.equal((await svc.admin('GET', path(port, 'a', 'last'))).json.value, { path: '/hit' });
  await call(port, 'GET', '/down', { headers: { 'X-Flow': 'a' } });
  assert.is((await svc.admin('GET', path(port, 'a', 'hits'))).json.value, -2);
  assert.is((await svc.admin('GET', path(port, 'a', 'last'))).status, 404);
  await call(port, 'GET', '/reset', { headers: { 'X-Flow': 'b' } });
  assert.is((await svc.admin('GET', path(port, 'b', 'hits'))).status, 404);
  await call(port, 'GET', '/hit');
  assert.is((await svc.admin('GET', path(port, String(port), 'hits'))).json.value, 1, 'no header: the port is the flow id');
});

test('stateOps follow the response cycle: only the served response applies its ops', async () => {
  const port = await svc.createImposter({
    stubs: [
      {
        responses: [
          { ...is, _svc: { stateOps: [{ op: 'increment', key: 'first' }] } },
          { ...is, _svc: { stateOps: [{ op: 'increment', key: 'second' }] } },
        ],
      },
    ],
  });
  for (let i = 0; i < 3; i += 1) await call(port, 'GET', '/');
  assert.is((await svc.admin('GET', path(port, String(port), 'first'))).json.value, 2);
  assert.is((await svc.admin('GET', path(port, String(port), 'second'))).json.value, 1);
});

test('a failing stateOp answers that request with a 500 envelope, and the imposter keeps serving', async () => {
  const port = await svc.createImposter({
    _svc: { flowState: {} },
    stubs: [{ responses: [{ ...is, _svc: { stateOps: [{ op: 'increment', key: 'name' }] } }] }],
  });
  await svc.admin('PUT', path(port, String(port), 'name'), { value: 'text' });
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 500);
  assert.match(JSON.parse(res.body).errors[0].message, /_svc.stateOps failed: .*not a number/);
  await svc.admin('DELETE', path(port, String(port)));
  assert.is((await call(port, 'GET', '/')).status, 200);
});

test('savedRequests match=flow_id and verify flowId use the header; without it a header-sourced request has no flow id', async () => {
  const port = await svc.createImposter({ ...headerFlow, recordRequests: true, stubs: [{ responses: [is] }] });
  await call(port, 'GET', '/a', { headers: { 'x-flow': 'one' } });
  await call(port, 'GET', '/b', { headers: { 'X-FLOW': 'two' } });
  await call(port, 'GET', '/c');
  const one = await svc.admin('GET', `/imposters/${port}/savedRequests?match=flow_id=one`);
  assert.equal(
    one.json.map((r: { path: string }) => r.path),
    ['/a'],
  );
  const byPort = await svc.admin('GET', `/imposters/${port}/savedRequests?match=flow_id=${port}`);
  assert.equal(byPort.json, [], 'the polling filter does not fall back to the port (docs/metrics-and-events.md)');
  const verified = await svc.admin('POST', `/imposters/${port}/verify`, { predicates: [{ startsWith: { path: '/' } }], flowId: 'two' });
  assert.equal([verified.json.matched, verified.json.total], [1, 1]);
  const all = await svc.admin('POST', `/imposters/${port}/verify`, { predicates: [{ startsWith: { path: '/' } }] });
  assert.is(all.json.total, 3);
  await svc.admin('DELETE', `/imposters/${port}/savedRequests?match=flow_id=one`);
  assert.equal(
    (await svc.admin('GET', `/imposters/${port}/savedRequests`)).json.map((r: { path: string }) => r.path),
    ['/b', '/c'],
  );
});

test('a port-sourced imposter: every request is in the port flow', async () => {
  const port = await svc.createImposter({ recordRequests: true, stubs: [{ responses: [is] }] });
  await call(port, 'GET', '/a', { headers: { 'x-flow': 'one' } });
  assert.is((await svc.admin('GET', `/imposters/${port}/savedRequests?match=flow_id=${port}`)).json.length, 1);
  assert.is((await svc.admin('GET', `/imposters/${port}/savedRequests?match=flow_id=one`)).json.length, 0);
  const verified = await svc.admin('POST', `/imposters/${port}/verify`, { predicates: [], flowId: String(port) });
  assert.is(verified.json.total, 1);
});

test('observers get the flow id resolved at record time, the port when the header is missing', async () => {
  const seen: Array<string | undefined> = [];
  const unobserve = svc.manager.observe({ onRecorded: (_port, _index, _request, flowId) => seen.push(flowId) });
  try {
    const port = await svc.createImposter({ ...headerFlow, recordRequests: true, stubs: [{ responses: [is] }] });
    await call(port, 'GET', '/', { headers: { 'X-Flow': 'abc' } });
    await call(port, 'GET', '/');
    assert.equal(seen, ['abc', String(port)]);
  } finally {
    unobserve();
  }
});

test('flow state survives PUT /imposters and stub edits when _svc.flowState is unchanged, and not when it changes', async () => {
  const port = await svc.createImposter({ _svc: { flowState: { ttlSeconds: 60 } }, name: 'v1', stubs: [{ responses: [is] }] });
  await svc.admin('PUT', path(port, 'f', 'k'), { value: 7 });
  const replaced = await svc.admin('PUT', '/imposters', {
    imposters: [{ port, protocol: 'http', name: 'v2', _svc: { flowState: { ttlSeconds: 60 } }, stubs: [{ responses: [is] }] }],
  });
  assert.is(replaced.status, 200, JSON.stringify(replaced.json));
  assert.is((await svc.admin('GET', `/imposters/${port}`)).json.name, 'v2');
  assert.is((await svc.admin('GET', path(port, 'f', 'k'))).json.value, 7, 'kept across a replacement');
  await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [{ responses: [{ is: { body: 'y' } }] }] });
  assert.is((await svc.admin('GET', path(port, 'f', 'k'))).json.value, 7, 'kept across stub edits');
  await svc.admin('PUT', '/imposters', { imposters: [{ port, protocol: 'http', _svc: { flowState: { ttlSeconds: 30 } } }] });
  assert.is((await svc.admin('GET', path(port, 'f', 'k'))).status, 404, 'a new flowState starts empty');
});

test('the implicit store of scenario imposters is kept across replacement too', async () => {
  const config = (name: string) => ({ port, protocol: 'http', name, stubs: [{ scenarioName: 's', responses: [is] }] });
  let port = await svc.createImposter({ stubs: [{ scenarioName: 's', responses: [is] }] });
  await svc.admin('PUT', path(port, 'f', 'k'), { value: 1 });
  port = (await svc.admin('PUT', '/imposters', { imposters: [config('renamed')] })).json.imposters[0].port;
  assert.is((await svc.admin('GET', path(port, 'f', 'k'))).json.value, 1);
});

test('metrics: svc_flow_state_ops_total by operation and result, svc_active_flows by backend', async () => {
  const metrics: RunningMetrics = await startMetricsServer({ port: 0, host: '127.0.0.1', manager: svc.manager, admin: svc.server });
  try {
    const scrape = async () => parseExposition((await http('GET', `http://127.0.0.1:${metrics.port}/metrics`)).body);
    const sample = (families: Awaited<ReturnType<typeof scrape>>, name: string, labels: Record<string, string>) =>
      families.get(name)?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;
    const before = await scrape();
    const port = await svc.createImposter({ _svc: { flowState: {} } });
    await svc.admin('PUT', path(port, 'm1', 'k'), { value: 1 });
    await svc.admin('PUT', path(port, 'm2', 'k'), { value: 1 });
    await svc.admin('GET', path(port, 'm1', 'k'));
    await svc.admin('GET', path(port, 'm1', 'absent'));
    const after = await scrape();
    assert.is(
      sample(after, 'svc_flow_state_ops_total', { operation: 'set', result: 'ok' })
        - sample(before, 'svc_flow_state_ops_total', { operation: 'set', result: 'ok' }),
      2,
    );
    assert.is(
      sample(after, 'svc_flow_state_ops_total', { operation: 'get', result: 'miss' })
        - sample(before, 'svc_flow_state_ops_total', { operation: 'get', result: 'miss' }),
      1,
    );
    assert.is(sample(after, 'svc_active_flows', { backend: 'inmemory' }) - sample(before, 'svc_active_flows', { backend: 'inmemory' }), 2);
    await svc.admin('DELETE', path(port, 'm1'));
    await svc.admin('DELETE', `/imposters/${port}`);
    assert.is(
      sample(await scrape(), 'svc_active_flows', { backend: 'inmemory' }),
      sample(before, 'svc_active_flows', { backend: 'inmemory' }),
      'cleared and closed stores stop counting',
    );
  } finally {
    await metrics.close();
  }
});

test.run();

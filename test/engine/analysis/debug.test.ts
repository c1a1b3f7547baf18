import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';

const test = suite('debug mode (docs/metrics-and-events.md)');
const svc = inProcessForSuite(test);
let port: number;
const longBody = 'x'.repeat(1200);

test.before.each(async () => {
  port = await freePort();
  const res = await svc.admin('POST', '/imposters', {
    port,
    protocol: 'http',
    name: 'orders api',
    recordRequests: true,
    stubs: [
      {
        id: 'cycle',
        predicates: [{ equals: { path: '/cycle' } }],
        responses: [{ is: { statusCode: 201, headers: { 'X-Kind': 'first' }, body: longBody } }, { is: { statusCode: 202, body: 'second' } }],
      },
      { predicates: [{ equals: { method: 'POST', path: '/orders' } }], responses: [{ proxy: { to: 'http://127.0.0.1:1' } }] },
      // contains on a JSON number throws while matching (mountebank answers 500).
      { id: 'broken', predicates: [{ equals: { path: '/broken' } }, { contains: { body: { n: '1' } } }], responses: [{ is: {} }] },
    ],
  });
  assert.is(res.status, 201, res.body);
});

function debug(path: string, value = 'true', options: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  return call(port, options.method ?? 'GET', path, { headers: { 'X-Svc-Debug': value, ...options.headers }, body: options.body });
}

test('matched: stub index/id, predicates and a preview of the response served next; the cycle does not move', async () => {
  const res = await debug('/cycle?a=1', 'true', { headers: { 'X-Trace': 't' } });
  assert.is(res.status, 200);
  assert.is(res.headers['content-type'], 'application/json');
  assert.is(res.headers['x-svc-debug-response'], 'true');
  const report = JSON.parse(res.body);
  assert.is(report.debug, true);
  assert.is(report.request.method, 'GET');
  assert.is(report.request.path, '/cycle');
  assert.equal(report.request.query, { a: '1' });
  assert.is(report.request.headers['X-Trace'], 't');
  assert.ok(!Object.keys(report.request.headers).some((h) => h.toLowerCase() === 'x-svc-debug'), 'debug header left out');
  assert.is(report.request.body, undefined, 'no body field without a body');
  assert.equal(report.imposter, { port, name: 'orders api', protocol: 'http', stubCount: 3 });
  const result = report.matchResult;
  assert.is(result.matched, true);
  assert.is(result.stubIndex, 0);
  assert.is(result.stubId, 'cycle');
  assert.equal(result.predicates, [{ equals: { path: '/cycle' } }]);
  assert.is(result.responsePreview.responseType, 'is');
  assert.is(result.responsePreview.statusCode, 201);
  assert.is(result.responsePreview.headers['X-Kind'], 'first');
  assert.is(result.responsePreview.bodyPreview, longBody.slice(0, 500));
  await debug('/cycle', '1');
  const served = await call(port, 'GET', '/cycle');
  assert.is(served.status, 201, 'the first response is still next: debug requests never advance the cycle');
  const after = JSON.parse((await debug('/cycle')).body);
  assert.is(after.matchResult.responsePreview.statusCode, 202, 'the preview follows the cycle: the second response is next now');
});

test('value spellings: TRUE and 1 turn it on, anything else is a normal request', async () => {
  assert.is((await debug('/cycle', 'TRUE')).headers['x-svc-debug-response'], 'true');
  assert.is((await debug('/cycle', '1')).headers['x-svc-debug-response'], 'true');
  const normal = await debug('/cycle', 'false');
  assert.is(normal.status, 201);
  assert.is(normal.headers['x-svc-debug-response'], undefined);
});

test('matched non-is stub previews its type only', async () => {
  const res = await debug('/orders', 'true', { method: 'POST', body: '{"id":1}' });
  const report = JSON.parse(res.body);
  assert.is(report.request.body, '{"id":1}');
  assert.is(report.matchResult.stubIndex, 1);
  assert.type(report.matchResult.stubId, 'string', 'the admin plane generated an id');
  assert.equal(report.matchResult.responsePreview, { responseType: 'proxy' });
});

test('unmatched: reason and every stub with index, id, predicates and response count', async () => {
  await svc.admin('DELETE', `/imposters/${port}/stubs/2`);
  const res = await debug('/nowhere');
  assert.is(res.status, 200);
  assert.is(res.headers['x-svc-debug-response'], 'true');
  const result = JSON.parse(res.body).matchResult;
  assert.is(result.matched, false);
  assert.is(result.reason, 'no stub matched the request');
  assert.equal(result.allStubs, [
    { index: 0, id: 'cycle', predicates: [{ equals: { path: '/cycle' } }], responseCount: 2 },
    { index: 1, id: result.allStubs[1].id, predicates: [{ equals: { method: 'POST', path: '/orders' } }], responseCount: 1 },
  ]);
  await svc.admin('POST', `/imposters/${port}/disable`);
  const disabled = JSON.parse((await debug('/cycle')).body).matchResult;
  assert.is(disabled.matched, false);
  assert.is(disabled.reason, 'imposter is disabled');
});

test('debug requests are recorded without status, latencyMs or matchOutcome', async () => {
  await debug('/cycle');
  await call(port, 'GET', '/cycle');
  const [debugged, normal] = (await svc.admin('GET', `/imposters/${port}/savedRequests`)).json;
  assert.is(debugged.path, '/cycle');
  assert.is(debugged.status, undefined);
  assert.is(debugged.latencyMs, undefined);
  assert.is(debugged.matchOutcome, undefined);
  assert.is(normal.status, 201, 'a normal request is stamped');
});

test('a matching failure answers 500 Debug matching failed without the debug header', async () => {
  const res = await debug('/broken', 'true', { method: 'POST', body: '{"n":1}', headers: { 'Content-Type': 'application/json' } });
  assert.is(res.status, 500);
  assert.is(res.headers['x-svc-debug-response'], undefined);
  assert.is(JSON.parse(res.body).errors[0].message, 'Debug matching failed');
});

test.run();

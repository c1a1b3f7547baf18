import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';

const test = suite('recording, savedRequests, verify');
const svc = inProcessForSuite(test);
let port: number;

test.before.each(async () => {
  port = await freePort();
  await svc.admin('POST', '/imposters', {
    port,
    protocol: 'http',
    recordRequests: true,
    stubs: [
      { id: 'orders', predicates: [{ equals: { path: '/orders', method: 'POST' } }], responses: [{ is: { statusCode: 201 } }] },
      { id: 'other', predicates: [{ equals: { path: '/other' } }], responses: [{ is: { statusCode: 202, headers: { Connection: 'keep-alive' } } }] },
    ],
  });
});

test('recorded request fields, status/latency and matchOutcome', async () => {
  await call(port, 'POST', '/orders?x=1&x=2', { body: '{"a":1}', headers: { 'X-Trace': 't1', 'Content-Type': 'application/json' } });
  await call(port, 'GET', '/missing');
  const res = await svc.admin('GET', `/imposters/${port}/savedRequests`);
  assert.is(res.status, 200);
  const [hit, miss] = res.json;
  assert.is(hit.method, 'POST');
  assert.is(hit.path, '/orders');
  assert.equal(hit.query, { x: ['1', '2'] });
  assert.is(hit.headers['X-Trace'], 't1');
  assert.is(hit.body, '{"a":1}');
  assert.match(hit.requestFrom, /:\d+$/);
  assert.ok(!Number.isNaN(Date.parse(hit.timestamp)));
  assert.is(hit.status, 201);
  assert.type(hit.latencyMs, 'number');
  assert.equal(hit.matchOutcome, { matched: true, stubIndex: 0, stubId: 'orders' });
  assert.is(miss.body, undefined, 'no body field when the request had none');
  assert.equal(
    miss.matchOutcome,
    {
      matched: false,
      tried: [
        { stubIndex: 0, stubId: 'orders', why: { reason: 'failedPredicate', predicateIndex: 0 } },
        { stubIndex: 1, stubId: 'other', why: { reason: 'failedPredicate', predicateIndex: 0 } },
      ],
    },
    'stubs the literal index rules out are still reported',
  );
  const detail = await svc.admin('GET', `/imposters/${port}`);
  assert.is(detail.json.numberOfRequests, 2);
  assert.is(detail.json.requests.length, 2);
});

test('tried lists every candidate in index order with its first failing predicate, capped at 25 with triedOmitted', async () => {
  const many = await freePort();
  const stubs = Array.from({ length: 30 }, (_, i) => ({
    id: `s${i}`,
    // Every other stub fails on its second predicate: an unindexable regex passes, the literal path fails.
    predicates: i % 2 === 0 ? [{ equals: { path: `/p${i}` } }] : [{ matches: { path: '^/' } }, { equals: { path: `/p${i}`, method: 'GET' } }],
    responses: [{ is: { statusCode: 200 + i } }],
  }));
  await svc.admin('POST', '/imposters', { port: many, protocol: 'http', recordRequests: true, stubs });
  await call(many, 'GET', '/nowhere');
  assert.is((await call(many, 'GET', '/p27')).status, 227);
  const [miss, hit] = (await svc.admin('GET', `/imposters/${many}/savedRequests`)).json;
  const expected = (i: number) => ({ stubIndex: i, stubId: `s${i}`, why: { reason: 'failedPredicate', predicateIndex: i % 2 } });
  assert.equal(miss.matchOutcome, { matched: false, tried: Array.from({ length: 25 }, (_, i) => expected(i)), triedOmitted: 5 });
  assert.equal(hit.matchOutcome, { matched: true, stubIndex: 27, stubId: 's27', tried: Array.from({ length: 25 }, (_, i) => expected(i)), triedOmitted: 2 });
});

test('binary request body is recorded base64 with _mode binary', async () => {
  const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
  await call(port, 'PUT', '/bin', { body: bytes });
  const [entry] = (await svc.admin('GET', `/imposters/${port}/requests`)).json;
  assert.is(entry._mode, 'binary');
  assert.ok(Buffer.from(entry.body, 'base64').equals(bytes));
});

test('since cursor, x-svc-next-index and match clauses', async () => {
  const empty = await svc.admin('GET', `/imposters/${port}/savedRequests`);
  assert.is(empty.headers['x-svc-next-index'], '0');
  await call(port, 'GET', '/other', { headers: { 'X-Tenant': 'a' } });
  await call(port, 'POST', '/orders', { headers: { 'X-Tenant': 'b' } });
  await call(port, 'GET', '/other', { headers: { 'X-Tenant': 'b' } });
  const after1 = await svc.admin('GET', `/imposters/${port}/savedRequests?since=1`);
  assert.is(after1.json.length, 2);
  assert.is(after1.headers['x-svc-next-index'], '3');
  const filtered = await svc.admin('GET', `/imposters/${port}/savedRequests?match=header:x-tenant=b&match=method=GET`);
  assert.is(filtered.json.length, 1);
  assert.is(filtered.json[0].path, '/other');
  assert.is(filtered.headers['x-svc-next-index'], '3', 'cursor advances past rejected entries');
  const byPath = await svc.admin('GET', `/imposters/${port}/savedRequests?match=path=/orders`);
  assert.is(byPath.json.length, 1);
  const tip = await svc.admin('GET', `/imposters/${port}/savedRequests?since=3`);
  assert.equal(tip.json, []);
  assert.is(tip.headers['x-svc-truncated'], undefined);
  const bad = await svc.admin('GET', `/imposters/${port}/savedRequests?match=bogus`);
  assert.is(bad.status, 400);
});

test('a cursor past the tip answers the real tip (0 when nothing was recorded)', async () => {
  const nothing = await svc.admin('GET', `/imposters/${port}/savedRequests?since=5`);
  assert.equal(nothing.json, []);
  assert.is(nothing.headers['x-svc-next-index'], '0');
  await call(port, 'GET', '/other');
  await call(port, 'GET', '/other');
  const stale = await svc.admin('GET', `/imposters/${port}/savedRequests?since=99999`);
  assert.equal(stale.json, []);
  assert.is(stale.headers['x-svc-next-index'], '2');
  const reconciled = await svc.admin('GET', `/imposters/${port}/requests?since=0`);
  assert.is(reconciled.json.length, 2);
});

test('clearing keeps indices; DELETE with match clears only matching', async () => {
  await call(port, 'GET', '/other');
  await call(port, 'POST', '/orders');
  const cleared = await svc.admin('DELETE', `/imposters/${port}/savedRequests?match=method=POST`);
  assert.is(cleared.status, 200);
  let left = await svc.admin('GET', `/imposters/${port}/savedRequests`);
  assert.equal(
    left.json.map((r: any) => r.method),
    ['GET'],
  );
  await svc.admin('DELETE', `/imposters/${port}/requests`);
  await call(port, 'GET', '/other');
  left = await svc.admin('GET', `/imposters/${port}/savedRequests?since=2`);
  assert.is(left.json.length, 1);
  assert.is(left.headers['x-svc-next-index'], '3', 'indices survive clearing');
  assert.is((await svc.admin('DELETE', `/imposters/${port}/savedProxyResponses`)).status, 200);
});

test('verify counts matches and reports the closest miss', async () => {
  await call(port, 'POST', '/orders', { body: 'one' });
  await call(port, 'POST', '/orders', { body: 'two' });
  await call(port, 'GET', '/orders');
  const res = await svc.admin('POST', `/imposters/${port}/verify`, {
    predicates: [{ equals: { method: 'POST' } }, { equals: { path: '/orders' } }],
    includeRequests: true,
  });
  assert.is(res.status, 200);
  assert.is(res.json.matched, 2);
  assert.is(res.json.total, 3);
  assert.is(res.json.requests.length, 2);
  const closest = await svc.admin('POST', `/imposters/${port}/verify`, {
    predicates: [{ equals: { method: 'DELETE' } }, { equals: { path: '/orders' } }],
    includeClosest: true,
  });
  assert.is(closest.json.matched, 0);
  assert.is(closest.json.closest.request.method, 'GET', 'ties go to the most recent');
  assert.equal(closest.json.closest.failedPredicates, [{ predicate: { equals: { method: 'DELETE' } }, actual: { method: 'GET' } }]);
  const gated = await svc.admin('POST', `/imposters/${port}/verify`, { predicates: [{ inject: 'function () { return true; }' }] });
  assert.is(gated.status, 400);
  assert.is(gated.json.errors[0].code, 'invalid injection');
});

test('journal keeps the newest 10,000 with x-svc-truncated for unseen evictions', async () => {
  const net = await import('node:net');
  const total = 10_005;
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let seen = 0;
    let buffered = '';
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      let at: number;
      while ((at = buffered.indexOf('HTTP/1.1 ')) !== -1) {
        seen += 1;
        buffered = buffered.slice(at + 9);
      }
      if (seen >= total) {
        socket.destroy();
        resolve();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (seen < total) reject(new Error(`connection closed after ${seen} responses`));
    });
    const one = 'GET /other HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n';
    socket.write(one.repeat(total));
  });
  const res = await svc.admin('GET', `/imposters/${port}/savedRequests?since=0`);
  assert.is(res.json.length, 10_000);
  assert.is(res.headers['x-svc-truncated'], 'true');
  assert.is(res.headers['x-svc-next-index'], String(total));
  const noSince = await svc.admin('GET', `/imposters/${port}/savedRequests`);
  assert.is(noSince.headers['x-svc-truncated'], undefined, 'omitting since never reports truncation');
  const recent = await svc.admin('GET', `/imposters/${port}/savedRequests?since=10`);
  assert.is(recent.headers['x-svc-truncated'], undefined, 'entries after the cursor are all retained');
});

test.run();

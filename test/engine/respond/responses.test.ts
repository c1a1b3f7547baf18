import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';

const test = suite('imposter: is responses');
const svc = inProcessForSuite(test);

const imposter = (config: Record<string, unknown>): Promise<number> => svc.createImposter(config);

test('header arrays become repeated header lines; JSON body pretty-printed with 4 spaces', async () => {
  const port = await imposter({
    stubs: [{ responses: [{ is: { statusCode: 201, headers: { 'X-Multi': ['1', '2'], 'Content-Type': 'application/json' }, body: { a: [1, 2] } } }] }],
  });
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 201);
  const values = res.rawHeaders.filter((_, i) => i % 2 === 1 && res.rawHeaders[i - 1] === 'X-Multi');
  assert.equal(values, ['1', '2']);
  assert.is(res.body, JSON.stringify({ a: [1, 2] }, null, 4));
});

test('_mode binary decodes base64 byte-exact', async () => {
  const bytes = Buffer.from([0, 255, 1, 254, 128, 10, 13]);
  const port = await imposter({ stubs: [{ responses: [{ is: { body: bytes.toString('base64'), _mode: 'binary' } }] }] });
  const res = await call(port, 'GET', '/');
  assert.ok(res.bodyBytes.equals(bytes));
});

test('defaultResponse fills fields a response omits and answers when nothing matches', async () => {
  const port = await imposter({
    defaultResponse: { statusCode: 404, headers: { 'X-Default': 'yes' }, body: 'nope' },
    stubs: [{ predicates: [{ equals: { path: '/hit' } }], responses: [{ is: { body: 'hit' } }] }],
  });
  const miss = await call(port, 'GET', '/miss');
  assert.is(miss.status, 404);
  assert.is(miss.body, 'nope');
  assert.is(miss.headers['x-default'], 'yes');
  const hit = await call(port, 'GET', '/hit');
  assert.is(hit.status, 404, 'statusCode falls back to defaultResponse like mountebank');
  assert.is(hit.body, 'hit');
});

test('no match and no defaultResponse: 200 with empty body and Connection: close', async () => {
  const port = await imposter({ stubs: [{ predicates: [{ equals: { path: '/x' } }], responses: [{ is: { statusCode: 500 } }] }] });
  const res = await call(port, 'GET', '/other');
  assert.is(res.status, 200);
  assert.is(res.body, '');
  assert.is(res.headers.connection, 'close');
});

test('Content-Length given in a stub is recomputed; Connection: keep-alive keeps the socket', async () => {
  const port = await imposter({ stubs: [{ responses: [{ is: { headers: { 'Content-Length': '999', Connection: 'keep-alive' }, body: 'four' } }] }] });
  const res = await call(port, 'GET', '/');
  assert.is(res.headers['content-length'], '4');
  assert.is(res.headers.connection, 'keep-alive');
});

test('allowCORS answers a preflight with mirrored Allow headers', async () => {
  const port = await imposter({ allowCORS: true });
  const res = await call(port, 'OPTIONS', '/', {
    headers: { Origin: 'http://a.example', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'X-Token' },
  });
  assert.is(res.headers['access-control-allow-origin'], 'http://a.example');
  assert.is(res.headers['access-control-allow-methods'], 'PUT');
  assert.is(res.headers['access-control-allow-headers'], 'X-Token');
  const plain = await call(port, 'OPTIONS', '/');
  assert.is(plain.headers['access-control-allow-origin'], undefined);
});

test('top-level fault resets the connection; unknown fault is 500 plain text', async () => {
  const port = await imposter({
    stubs: [
      { predicates: [{ equals: { path: '/reset' } }], responses: [{ fault: 'CONNECTION_RESET_BY_PEER' }] },
      { predicates: [{ equals: { path: '/odd' } }], responses: [{ fault: 'NOPE' }] },
    ],
  });
  const err = await call(port, 'GET', '/reset').then(
    () => undefined,
    (e) => e.code,
  );
  assert.is(err, 'ECONNRESET');
  const odd = await call(port, 'GET', '/odd');
  assert.is(odd.status, 500);
  assert.is(odd.body, 'Unknown fault: NOPE');
});

test('a single-valued header named twice in different cases is a 400 naming it; multi-valued names may repeat', async () => {
  const twice = await svc.admin('POST', '/imposters', {
    protocol: 'http',
    stubs: [{ responses: [{ is: { headers: { 'Content-Type': 'a', 'content-type': 'b' } } }] }],
  });
  assert.is(twice.status, 400);
  assert.is(twice.json.errors[0].type, 'bad_data');
  assert.match(twice.json.errors[0].message, /'stubs\[0\]\.responses\[0\]\.is\.headers' repeats the header 'Content-Type' as 'content-type'/);
  const inDefault = await svc.admin('POST', '/imposters', { protocol: 'http', defaultResponse: { headers: { 'X-Id': '1', 'X-ID': '2' } } });
  assert.is(inDefault.status, 400);
  assert.match(inDefault.json.errors[0].message, /'defaultResponse\.headers' repeats the header 'X-Id' as 'X-ID'/);
  const port = await imposter({ stubs: [{ responses: [{ is: { headers: { 'Set-Cookie': 'a=1', 'set-cookie': 'b=2' } } }] }] });
  const res = await call(port, 'GET', '/');
  assert.equal(
    res.rawHeaders.filter((_, i) => i % 2 === 1 && res.rawHeaders[i - 1].toLowerCase() === 'set-cookie'),
    ['a=1', 'b=2'],
  );
  const added = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { responses: [{ is: { headers: { ETag: '1', etag: '2' } } }] } });
  assert.is(added.status, 400);
  assert.match(added.json.errors[0].message, /repeats the header 'ETag' as 'etag'/);
});

test.run();

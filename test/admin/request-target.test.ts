/**
 * Issue 19 item 4 (admin reads): the admin plane reads most targets without the URL parser and answers
 * bodiless requests without waiting a turn for their (empty) body. What a client sees must not change:
 * the same path and query as the parser gives, keep-alive after a refused read, bodies still read.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requestTarget } from '../../admin/request-target.js';
import { inProcessForSuite } from '../support/in-process.js';
import { headerOf, RawClient } from '../support/raw-http.js';

const test = suite('admin: request targets and bodiless requests');
const svc = inProcessForSuite(test);
const keyed = inProcessForSuite(test, { apiKey: 'k' });

const TARGETS = [
  '/',
  '/imposters',
  '/imposters/',
  '/imposters/4545',
  '/imposters/4545/savedRequests?since=12',
  '/imposters/4545/savedRequests?since=12&match=path%3D%2Fa&match=method%3DGET',
  '/imposters?replayable=true&removeProxies=TRUE',
  '/imposters?a=1+2&b=%zz&c=&=d&&e',
  '/imposters?a=1#frag',
  '/imposters/./4545',
  '/imposters/../config',
  '/imposters/%2e%2e/config',
  '/a b?c d=e f',
  '/imposters\\4545',
  '/imposters/4545/stubs/by-id/caf%C3%A9',
  '/imposters?q=caf\u00e9&r=\u{1F600}',
  '/imposters?x=a;b&y=<z>',
  '//host/imposters',
  '/imposters//4545',
  '/__svc/4545/a/b?c=d',
];

test('every target reads as the URL parser reads it: the same path and the same query entries', () => {
  for (const raw of TARGETS) {
    const url = new URL(raw, 'http://localhost');
    const target = requestTarget(raw);
    assert.is(target.pathname, url.pathname, raw);
    assert.equal([...new URLSearchParams(target.search)], [...url.searchParams], raw);
  }
  assert.throws(
    () => requestTarget('http://['),
    (err: { status?: number }) => err.status === 400,
  );
});

test('a refused bodiless read keeps the connection: the next request on it is answered', async () => {
  for (const [server, head] of [
    [svc, 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n'],
    [svc, 'GET /imposters/1/stubs/%E0 HTTP/1.1\r\nHost: x\r\n\r\n'],
    [keyed, 'GET /imposters HTTP/1.1\r\nHost: x\r\n\r\n'],
  ] as const) {
    const client = await RawClient.connect(server.adminPort);
    try {
      client.send(head);
      const refused = await client.next();
      assert.ok(refused.status >= 400 && refused.status < 500, `${head}: ${refused.status}`);
      assert.is.not(headerOf(refused, 'connection')?.toLowerCase(), 'close', head);
      client.send('GET / HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\n\r\n');
      const next = await client.next();
      assert.is(next.status, 200, head);
      assert.ok(JSON.parse(next.body.toString())._links, head);
    } finally {
      client.close();
    }
  }
});

test('pipelined reads and writes on one connection are answered in order, each read seeing the writes before it (it could not before)', async () => {
  const port = await svc.createImposter({ stubs: [{ responses: [{ is: { body: 'first' } }] }] });
  const body = JSON.stringify({ stub: { responses: [{ is: { body: 'second' } }] } });
  const client = await RawClient.connect(svc.adminPort);
  try {
    client.send(
      `GET /imposters/${port} HTTP/1.1\r\nHost: x\r\n\r\n`
        + `POST /imposters/${port}/stubs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
        + `GET /imposters/${port}?replayable=true HTTP/1.1\r\nHost: x\r\n\r\n`
        + `POST /imposters/${port}/stubs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
        + `GET /imposters/${port}/stubs HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    const stubsIn = async () => JSON.parse((await client.next()).body.toString()).stubs.length as number;
    assert.is(await stubsIn(), 1);
    assert.is(await stubsIn(), 2, 'the POST with a Content-Length added its stub');
    assert.is(await stubsIn(), 2);
    assert.is(await stubsIn(), 3, 'the chunked POST added its stub');
    assert.is(await stubsIn(), 3);
  } finally {
    client.close();
  }
});

test('a reply larger than the joined-string limit arrives whole, with a Content-Length that fits it', async () => {
  const stubs = Array.from({ length: 200 }, (_, i) => ({
    predicates: [{ equals: { path: `/p${i}` } }],
    responses: [{ is: { body: `caf\u00e9 ${'x'.repeat(100)} ${i}` } }],
  }));
  const port = await svc.createImposter({ stubs });
  const client = await RawClient.connect(svc.adminPort);
  try {
    for (const path of [`/imposters/${port}`, `/imposters/${port}?replayable=true`]) {
      client.send(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const response = await client.next();
      assert.ok(response.body.length > 16 * 1024, `${path}: ${response.body.length} bytes`);
      assert.is(Number(headerOf(response, 'content-length')), response.body.length, path);
      const parsed = JSON.parse(response.body.toString());
      assert.is(parsed.stubs.length, 200, path);
      assert.is(parsed.stubs[199].responses[0].is.body, `caf\u00e9 ${'x'.repeat(100)} 199`, path);
    }
  } finally {
    client.close();
  }
});

test.run();

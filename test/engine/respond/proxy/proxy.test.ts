/**
 * Proxy responses end to end (docs/responses.md): svc in process, a real origin started by the test over
 * http and https, the recorded stubs read back through the admin API.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../../support/in-process.js';
import { freePort } from '../../../support/servers.js';
import { forwardingThreads, jsonHandler, startUpstream, type Upstream } from '../../../support/upstream.js';

const test = suite('proxy');
const svc = inProcessForSuite(test, { allowInjection: true, keepImposters: true });
let upstream: Upstream;

test.before.each(async () => {
  upstream = await startUpstream('http', jsonHandler({ greeting: 'hello' }));
});
test.after.each(async () => {
  await svc.admin('DELETE', '/imposters');
  await upstream.stop();
});

const imposter = (stubs: unknown[], extra: Record<string, unknown> = {}): Promise<number> => svc.createImposter({ stubs, ...extra });

async function stubs(port: number, query = ''): Promise<any[]> {
  return (await svc.admin('GET', `/imposters/${port}${query}`)).json.stubs;
}

function header(res: { rawHeaders: string[] }, name: string): string[] {
  return res.rawHeaders.filter((_, i) => i % 2 === 1 && res.rawHeaders[i - 1].toLowerCase() === name);
}

test('proxyOnce (the default): records a stub before the proxy, then replays it with the origin gone', async () => {
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, predicateGenerators: [{ matches: { path: true } }] } }] }]);
  const first = await call(port, 'GET', '/greet?x=1');
  assert.is(first.status, 200);
  assert.is(first.body, JSON.stringify({ greeting: 'hello' }, null, 4), 'JSON bodies are re-served pretty-printed, as mountebank');
  assert.equal(header(first, 'x-upstream'), ['yes']);
  assert.is(upstream.seen[0].url, '/greet?x=1');

  const recorded = await stubs(port);
  assert.is(recorded.length, 2);
  assert.equal(recorded[0].predicates, [{ deepEquals: { path: '/greet' } }]);
  const is = recorded[0].responses[0].is;
  assert.is(is.statusCode, 200);
  assert.equal(is.body, { greeting: 'hello' });
  assert.is(is._mode, 'text');
  assert.is(typeof is._proxyResponseTime, 'number');
  assert.is(is.headers['X-Upstream'], 'yes');
  assert.ok(recorded[1].responses[0].proxy, 'the proxy stub stays last');

  await upstream.stop();
  const replay = await call(port, 'GET', '/greet?x=2');
  assert.is(replay.status, 200);
  assert.equal(JSON.parse(replay.body), { greeting: 'hello' });
  assert.is(upstream.seen.length, 1, 'replayed without the origin');

  const other = await call(port, 'GET', '/other');
  assert.is(other.status, 500, 'a new request reaches the proxy, and the origin is down');
  assert.equal(JSON.parse(other.body).errors[0].code, 'invalid proxy');
  assert.match(JSON.parse(other.body).errors[0].message, /^Unable to connect to "http:\/\/127\.0\.0\.1:\d+"$/);
});

test('proxyAlways: every request is proxied; same predicates collect responses in one recorded stub', async () => {
  let n = 0;
  upstream.handler = (_req, res) => {
    n += 1;
    res.end(`answer ${n}`);
  };
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyAlways', predicateGenerators: [{ matches: { path: true } }] } }] }]);
  assert.is((await call(port, 'GET', '/a')).body, 'answer 1');
  assert.is((await call(port, 'GET', '/a')).body, 'answer 2');
  assert.is((await call(port, 'GET', '/b')).body, 'answer 3');
  const recorded = await stubs(port);
  assert.is(recorded.length, 3);
  assert.ok(recorded[0].responses[0].proxy, 'proxyAlways records after the proxy stub');
  assert.equal(recorded[1].predicates, [{ deepEquals: { path: '/a' } }]);
  assert.equal(
    recorded[1].responses.map((r: any) => r.is.body),
    ['answer 1', 'answer 2'],
  );
  assert.equal(recorded[2].predicates, [{ deepEquals: { path: '/b' } }]);

  const replayable = await svc.admin('GET', `/imposters/${port}?replayable=true&removeProxies=true`);
  assert.is(replayable.json.stubs.length, 2, 'the proxy stub is gone');
  assert.equal(
    replayable.json.stubs[0].responses.map((r: any) => r.is.body),
    ['answer 1', 'answer 2'],
  );
  assert.ok(
    replayable.json.stubs.every((s: any) => s.responses.every((r: any) => !('_proxyResponseTime' in r.is))),
    'recording times dropped',
  );
  assert.is(replayable.json.numberOfRequests, undefined);

  await upstream.stop();
  const replayPort = await freePort();
  const created = await svc.admin('POST', '/imposters', { ...replayable.json, port: replayPort });
  assert.is(created.status, 201);
  assert.equal(
    [(await call(replayPort, 'GET', '/a')).body, (await call(replayPort, 'GET', '/a')).body, (await call(replayPort, 'GET', '/b')).body],
    ['answer 1', 'answer 2', 'answer 3'],
  );
});

test('proxyTransparent: proxies and records nothing', async () => {
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyTransparent' } }] }]);
  for (let i = 0; i < 3; i += 1) assert.is((await call(port, 'GET', '/t')).status, 200);
  assert.is(upstream.seen.length, 3);
  assert.is((await stubs(port)).length, 1);
});

test('proxyOnce without predicateGenerators records a catch-all that answers everything afterwards', async () => {
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin } }] }]);
  await call(port, 'GET', '/first');
  await call(port, 'GET', '/second');
  assert.is(upstream.seen.length, 1);
  const recorded = await stubs(port);
  assert.equal(recorded[0].predicates, []);
});

test('predicateGenerators: nested equals, caseSensitive, jsonpath, xpath, ignore', async () => {
  const port = await imposter([
    {
      responses: [
        {
          proxy: {
            to: upstream.origin,
            mode: 'proxyAlways',
            predicateGenerators: [
              { matches: { method: true, query: { q: true } }, caseSensitive: true },
              { matches: { body: true }, jsonpath: { selector: '$.id' } },
              { matches: { query: true }, ignore: { query: 'ts' } },
              { matches: { headers: { 'X-Key': true, 'x-key': true } } },
            ],
          },
        },
      ],
    },
  ]);
  await call(port, 'POST', '/p?q=Alpha&ts=123&z=9', {
    headers: { 'X-Key': 'k1', 'content-type': 'application/json' },
    body: JSON.stringify({ id: 5, other: 1 }),
  });
  const [, recorded] = await stubs(port);
  assert.equal(recorded.predicates, [
    { caseSensitive: true, deepEquals: { method: 'POST' } },
    { caseSensitive: true, equals: { query: { q: 'Alpha' } } },
    { jsonpath: { selector: '$.id' }, deepEquals: { body: 5 } },
    { deepEquals: { query: { q: 'Alpha', z: '9' } } },
    { equals: { headers: { 'X-Key': 'k1' } } },
  ]);
});

test('predicateGenerators: xpath selects inside the body', async () => {
  const port = await imposter([
    { responses: [{ proxy: { to: upstream.origin, predicateGenerators: [{ matches: { body: true }, xpath: { selector: '//id' } }] } }] },
  ]);
  await call(port, 'POST', '/x', { body: '<order><id>77</id></order>' });
  const [recorded] = await stubs(port);
  assert.equal(recorded.predicates, [{ xpath: { selector: '//id' }, deepEquals: { body: '77' } }]);
  upstream.handler = jsonHandler({ greeting: 'other' });
  const replay = await call(port, 'POST', '/x', { body: '<order><id>77</id><x/></order>' });
  assert.equal(JSON.parse(replay.body), { greeting: 'hello' }, 'the recorded xpath predicate matches');
});

test('addWaitBehavior records the origin latency as a wait; addDecorateBehavior records the decorator', async () => {
  upstream.handler = (_req, res) => {
    setTimeout(() => res.end('slow'), 150);
  };
  const decorate = 'function (config) { config.response.body += "!"; }';
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, addWaitBehavior: true, addDecorateBehavior: decorate } }] }]);
  await call(port, 'GET', '/');
  const [recorded] = await stubs(port);
  const response = recorded.responses[0];
  assert.is(response.behaviors.length, 2);
  assert.ok(response.behaviors[0].wait >= 140, `wait ${response.behaviors[0].wait}`);
  assert.is(response.behaviors[0].wait, response.is._proxyResponseTime);
  assert.equal(response.behaviors[1], { decorate });
  const started = Date.now();
  await call(port, 'GET', '/');
  assert.ok(Date.now() - started >= 140, 'the replay waits as long as the origin took');
});

test('injectHeaders: set case-insensitively on the forwarded request (and on generated predicates); Host may be injected', async () => {
  const port = await imposter([
    {
      responses: [
        {
          proxy: {
            to: upstream.origin,
            injectHeaders: { 'X-Injected': 'yes', 'x-client': 'replaced' },
            predicateGenerators: [{ matches: { headers: { 'X-Injected': true } } }],
          },
        },
      ],
    },
  ]);
  await call(port, 'GET', '/h', { headers: { 'X-Client': 'original', 'x-injected': 'client value' } });
  const seen = upstream.seen[0];
  assert.is(seen.headers['x-injected'], 'yes');
  assert.is(seen.headers['x-client'], 'replaced');
  assert.is(seen.rawHeaders.filter((h) => h.toLowerCase() === 'x-client').length, 1);
  assert.is(seen.headers.host, `127.0.0.1:${upstream.port}`, 'Host is the origin');
  const [recorded] = await stubs(port);
  assert.equal(recorded.predicates, [{ equals: { headers: { 'X-Injected': 'yes' } } }], 'generator keys name headers as the request spells them (mountebank)');
  await call(port, 'GET', '/h', { headers: { 'x-injected': 'yes' } });
  assert.is(upstream.seen.length, 1, 'a request carrying the injected value replays the recording');

  const hostPort = await imposter([{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyTransparent', injectHeaders: { host: 'api.example.com' } } }] }]);
  await call(hostPort, 'GET', '/h');
  assert.is(upstream.seen[1].headers.host, 'api.example.com');
});

test('pathRewrite replaces a path prefix; the query string is kept', async () => {
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyTransparent', pathRewrite: { from: '/api/v1', to: '/v2' } } }] }]);
  await call(port, 'GET', '/api/v1/users?id=3');
  await call(port, 'GET', '/other?x=1');
  assert.equal(
    upstream.seen.map((s) => s.url),
    ['/v2/users?id=3', '/other?x=1'],
  );
});

test('request method, body and headers reach the origin; status and repeated headers come back', async () => {
  upstream.handler = (_req, res) => {
    res.setHeader('Set-Cookie', ['a=1', 'b=2']);
    res.writeHead(201, { 'Content-Type': 'text/plain' });
    res.end('created');
  };
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyTransparent' } }] }]);
  const res = await call(port, 'PUT', '/items/1', { headers: { 'Content-Type': 'application/json', 'X-Trace': 't1' }, body: '{"a":1}' });
  assert.is(res.status, 201);
  assert.is(res.body, 'created');
  assert.equal(header(res, 'set-cookie'), ['a=1', 'b=2']);
  const seen = upstream.seen[0];
  assert.is(seen.method, 'PUT');
  assert.is(seen.body.toString(), '{"a":1}');
  assert.is(seen.headers['x-trace'], 't1');
  assert.is(seen.headers['content-length'], '7');
});

test('binary bodies are preserved byte for byte and recorded as base64 with _mode binary', async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
  const raw = Buffer.from([0xc3, 0x28, 0xa0, 0xa1]);
  upstream.handler = (req, res) => {
    res.writeHead(200, { 'Content-Type': req.url === '/png' ? 'image/png' : 'text/plain' });
    res.end(req.url === '/png' ? png : raw);
  };
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyAlways', predicateGenerators: [{ matches: { path: true } }] } }] }]);
  assert.ok((await call(port, 'GET', '/png')).bodyBytes.equals(png));
  assert.ok((await call(port, 'GET', '/raw')).bodyBytes.equals(raw), 'non-UTF-8 text is kept as bytes too');
  const recorded = await stubs(port);
  assert.equal(recorded[1].responses[0].is.body, png.toString('base64'));
  assert.is(recorded[1].responses[0].is._mode, 'binary');
  assert.is(recorded[2].responses[0].is._mode, 'binary');
});

test('behaviors on the proxy response transform the answer before it is recorded', async () => {
  upstream.handler = (_req, res) => res.end('user NAME');
  const port = await imposter([
    {
      responses: [
        {
          proxy: { to: upstream.origin },
          _behaviors: { copy: [{ from: { query: 'name' }, into: 'NAME', using: { method: 'regex', selector: '\\w+' } }] },
        },
      ],
    },
  ]);
  assert.is((await call(port, 'GET', '/?name=ann')).body, 'user ann');
  const [recorded] = await stubs(port);
  assert.is(recorded.responses[0].is.body, 'user ann');
});

test('DELETE savedProxyResponses removes recordings and the stubs they leave empty; replay then proxies again', async () => {
  let n = 0;
  upstream.handler = (_req, res) => {
    n += 1;
    res.end(`v${n}`);
  };
  const port = await imposter([
    { predicates: [{ equals: { path: '/static' } }], responses: [{ is: { body: 'static' } }] },
    { responses: [{ proxy: { to: upstream.origin, predicateGenerators: [{ matches: { path: true } }] } }] },
  ]);
  await call(port, 'GET', '/a');
  await call(port, 'GET', '/b');
  assert.is((await stubs(port)).length, 4);
  const cleared = await svc.admin('DELETE', `/imposters/${port}/savedProxyResponses`);
  assert.is(cleared.status, 200);
  assert.is(cleared.json.stubs.length, 2);
  assert.is(cleared.json.stubs[0].responses[0].is.body, 'static');
  assert.ok(cleared.json.stubs[1].responses[0].proxy);
  assert.is((await call(port, 'GET', '/a')).body, 'v3');
});

test('an origin that drops the connection, before or during its answer: 500 invalid proxy, and svc keeps serving', async () => {
  upstream.handler = (req, res) => {
    if (req.url === '/partial') {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('only part');
    }
    setTimeout(() => res.socket?.destroy(), 20);
  };
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyTransparent' } }] }]);
  for (const path of ['/drop', '/partial']) {
    const res = await call(port, 'GET', path);
    assert.is(res.status, 500, path);
    assert.is(JSON.parse(res.body).errors[0].code, 'invalid proxy');
  }
  upstream.handler = jsonHandler({ back: true });
  assert.equal(JSON.parse((await call(port, 'GET', '/again')).body), { back: true });
});

test('https origin: proxied with certificate checks off, connections kept alive and reused', async () => {
  const secure = await startUpstream('https', jsonHandler({ secure: true }));
  try {
    const port = await imposter([{ responses: [{ proxy: { to: secure.origin, mode: 'proxyTransparent' } }] }]);
    for (let i = 0; i < 4; i += 1) {
      const res = await call(port, 'GET', `/s/${i}`, { headers: { Connection: 'keep-alive' } });
      assert.is(res.status, 200);
      assert.equal(JSON.parse(res.body), { secure: true });
    }
    assert.is(secure.seen.length, 4);
    assert.ok(secure.connections <= forwardingThreads(), 'one pooled connection (per forwarding thread) for four requests');
  } finally {
    await secure.stop();
  }
});

test('http origin: keep-alive clients share one pooled connection; a client asking to close is passed on', async () => {
  const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyTransparent' } }] }]);
  for (let i = 0; i < 5; i += 1) await call(port, 'GET', '/k', { headers: { Connection: 'keep-alive' } });
  assert.is(upstream.seen.length, 5);
  assert.ok(upstream.connections <= forwardingThreads(), 'one pooled connection per forwarding thread');
  const closing = await call(port, 'GET', '/k', { headers: { Connection: 'close' } });
  assert.equal(header(closing, 'connection'), ['close'], "the origin's answer to a closing client, as mountebank serves it");
});

test('an IPv6 literal origin ([::1]) is reached', async () => {
  const { createServer } = await import('node:http');
  const server = createServer((_req, res) => res.end('over v6'));
  await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
  try {
    const { port: origin } = server.address() as { port: number };
    const port = await imposter([{ responses: [{ proxy: { to: `http://[::1]:${origin}`, mode: 'proxyTransparent' } }] }]);
    assert.is((await call(port, 'GET', '/', { headers: { Connection: 'close' } })).body, 'over v6');
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
});

test('an https imposter proxies to an https svc imposter', async () => {
  const origin = await freePort();
  assert.is(
    (await svc.admin('POST', '/imposters', { port: origin, protocol: 'https', stubs: [{ responses: [{ is: { body: 'from https imposter' } }] }] })).status,
    201,
  );
  const port = await imposter([{ responses: [{ proxy: { to: `https://localhost:${origin}` } }] }]);
  const res = await call(port, 'GET', '/');
  assert.is(res.body, 'from https imposter');
});

test.run();

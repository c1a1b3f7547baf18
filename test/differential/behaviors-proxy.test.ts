/**
 * Behaviors and proxies, svc vs mountebank 2.9.1 (both with --allowInjection): the same imposter
 * JSON and requests, identical observable responses (test/support/mountebank/pair.ts), and the recorded stubs
 * read back as the same JSON (mountebank's document contained in svc's).
 *
 * Per-run values are masked before comparing: `_proxyResponseTime` and the recorded `wait` (each
 * side measures its own origin latency) and the origin's `Date` header.
 *
 * Departures from mountebank, per SPEC: `_behaviors` reads back as written (mountebank rewrites it
 * into the `behaviors` array), so the JSON comparisons use the array form.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOnBoth, deleteAll, missingFrom, normalizeAdmin, send, startPair, view, type Pair, type SideImposters } from '../support/mountebank/pair.js';
import { http, type HttpOptions } from '../support/servers.js';
import { jsonHandler, startUpstream, type Upstream } from '../support/upstream.js';

const test = suite('differential: behaviors and proxy');
let pair: Pair | undefined;
let upstream: Upstream;
let dir: string;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-diff-behaviors-'));
  upstream = await startUpstream('http', jsonHandler({ greeting: 'hello', n: 1 }));
  pair = await startPair(['--allowInjection']);
});
test.after(async () => {
  await pair?.stop();
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
});
test.after.each(async () => {
  if (pair) await deleteAll(pair);
  upstream.handler = jsonHandler({ greeting: 'hello', n: 1 });
});

function ready(): Pair {
  if (!pair) throw new Error('pair not started');
  return pair;
}

interface Req {
  method: string;
  path: string;
  options?: HttpOptions;
}

/** Sends the requests in order to both sides' first imposter; every answer must look the same. */
async function sameAnswers(sides: [SideImposters, SideImposters], requests: Req[], label: string): Promise<string[]> {
  const bodies: string[] = [];
  for (const [i, req] of requests.entries()) {
    const mb = view(await send(sides[0], req.method, req.path, req.options));
    const svc = view(await send(sides[1], req.method, req.path, req.options));
    assert.equal(svc, mb, `${label}: request ${i} ${req.method} ${req.path}`);
    bodies.push(mb.body);
  }
  return bodies;
}

type Json = Record<string, unknown>;

/** Masks what differs per run and per side inside recorded responses. */
function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '_proxyResponseTime' || (k === 'wait' && typeof v === 'number')) out[k] = '<ms>';
      else if (k === 'Date' && typeof v === 'string') out[k] = '<date>';
      else out[k] = masked(v);
    }
    return out;
  }
  return value;
}

async function sameAdminJson(sides: [SideImposters, SideImposters], path: string, label: string, method = 'GET'): Promise<Json> {
  const docs = await Promise.all(
    sides.map(async (s) => {
      const res = await http(method, `${s.side.admin}${path.replace('{port}', String(s.ports[0]))}`);
      assert.is(res.status, 200, `${label} (${s.side.name}): ${res.body}`);
      return masked(normalizeAdmin(JSON.parse(res.body), s.side, s.ports)) as Json;
    }),
  );
  const missing = missingFrom(docs[0], docs[1]);
  assert.equal(missing, [], `${label}: mountebank's JSON is not contained in svc's`);
  return docs[0];
}

const get = (path: string, headers: Record<string, string> = {}): Req => ({ method: 'GET', path, options: { headers } });
const post = (path: string, body: string, headers: Record<string, string> = {}): Req => ({ method: 'POST', path, options: { headers, body } });

test('copy: regex with groups, jsonpath and xpath, from path, query, headers and body', async () => {
  const sides = await createOnBoth(ready(), {
    protocol: 'http',
    stubs: [
      {
        responses: [
          {
            is: { statusCode: 200, headers: { 'X-Path': '${P}' }, body: { path: '${P}', id: '${P}[1]', q: '${Q}', h: '${H}', j: '${J}', x: '${X}' } },
            behaviors: [
              { copy: { from: 'path', into: '${P}', using: { method: 'regex', selector: '/items/(\\d+)' } } },
              { copy: { from: { query: 'Q' }, into: '${Q}', using: { method: 'regex', selector: '\\w+' } } },
              { copy: { from: { headers: 'x-tenant' }, into: '${H}', using: { method: 'regex', selector: 'acme', options: { ignoreCase: true } } } },
              { copy: { from: 'body', into: '${J}', using: { method: 'jsonpath', selector: '$.order.id' } } },
              { copy: { from: 'body', into: '${X}', using: { method: 'xpath', selector: '//id' } } },
            ],
          },
        ],
      },
    ],
  });
  const bodies = await sameAnswers(
    sides,
    [
      get('/items/42?q=alpha', { 'X-Tenant': 'The-ACME-co' }),
      post('/items/7', JSON.stringify({ order: { id: 99 } })),
      post('/nothing', '<order><id>5</id></order>'),
    ],
    'copy',
  );
  assert.match(bodies[0], /"id": "42"/);
  assert.match(bodies[1], /"j": "99"/);
  assert.match(bodies[2], /"x": "5"/);
});

test('lookup: CSV rows by key, quoted tokens, missing rows and files', async () => {
  const csv = join(dir, 'people.csv');
  writeFileSync(csv, 'id,name,city\n1,Ann,"Paris, FR"\n2,Bob,Oslo\n');
  const sides = await createOnBoth(ready(), {
    protocol: 'http',
    stubs: [
      {
        responses: [
          {
            is: { body: 'name=${ROW}["name"] city=${ROW}[\'city\'] bare=${ROW}[name] none=${MISSING}["x"]' },
            behaviors: [
              {
                lookup: {
                  key: { from: 'path', using: { method: 'regex', selector: '\\d+' } },
                  fromDataSource: { csv: { path: csv, keyColumn: 'id' } },
                  into: '${ROW}',
                },
              },
              {
                lookup: {
                  key: { from: 'path', using: { method: 'regex', selector: '\\d+' } },
                  fromDataSource: { csv: { path: join(dir, 'nope.csv'), keyColumn: 'id' } },
                  into: '${MISSING}',
                },
              },
            ],
          },
        ],
      },
    ],
  });
  const bodies = await sameAnswers(sides, [get('/people/1'), get('/people/2'), get('/people/3')], 'lookup');
  assert.is(bodies[0], 'name=Ann city=Paris, FR bare=Ann none=${MISSING}["x"]');
});

test('shellTransform: a pipeline of commands reading MB_REQUEST / MB_RESPONSE', async () => {
  const script = join(dir, 'transform.cjs');
  writeFileSync(
    script,
    [
      'const req = JSON.parse(process.env.MB_REQUEST);',
      'const res = JSON.parse(process.env.MB_RESPONSE);',
      'res.body = `${res.body}|${req.method} ${req.path} ${req.query.a}`;',
      'res.headers = { "X-Shell": String(process.argv.length) };',
      'process.stdout.write(JSON.stringify(res));',
    ].join('\n'),
  );
  const sides = await createOnBoth(ready(), {
    protocol: 'http',
    stubs: [{ responses: [{ is: { body: 'base' }, behaviors: [{ shellTransform: `node ${script}` }, { shellTransform: `node ${script}` }] }] }],
  });
  const [body] = await sameAnswers(sides, [get('/s?a=1')], 'shellTransform');
  assert.is(body, 'base|GET /s 1|GET /s 1');
});

test('wait and behaviors on defaultResponse fallbacks answer alike', async () => {
  const sides = await createOnBoth(ready(), {
    protocol: 'http',
    defaultResponse: { statusCode: 203, headers: { 'X-Default': 'yes' } },
    stubs: [
      {
        responses: [
          { is: { body: 'waited ${P}' }, behaviors: [{ wait: 50 }, { copy: { from: 'path', into: '${P}', using: { method: 'regex', selector: '\\w+' } } }] },
        ],
      },
    ],
  });
  await sameAnswers(sides, [get('/w')], 'wait');
});

test('decorate (both signatures) and a function wait answer alike', async () => {
  const sides = await createOnBoth(ready(), {
    protocol: 'http',
    stubs: [
      {
        predicates: [{ equals: { path: '/config' } }],
        responses: [
          {
            is: { body: 'a' },
            behaviors: [
              { wait: 'function () { return 20; }' },
              { decorate: 'function (config) { config.response.body += config.request.query.x; config.response.statusCode = 201; }' },
            ],
          },
        ],
      },
      {
        predicates: [{ equals: { path: '/old' } }],
        responses: [{ is: { body: 'b' }, behaviors: [{ decorate: 'function (request, response) { response.headers = { "X-Old": request.path }; }' }] }],
      },
      { responses: [{ is: { body: 'c' }, behaviors: [{ decorate: 'function (config) { return { body: JSON.stringify({ m: config.request.method }) }; }' }] }] },
    ],
  });
  const bodies = await sameAnswers(sides, [get('/config?x=1'), get('/old'), post('/new', '')], 'decorate');
  assert.equal(bodies, ['a1', 'b', '{"m":"POST"}']);
});

test('behavior validation errors: same status and messages', async () => {
  const p = ready();
  const invalid = {
    protocol: 'http',
    stubs: [
      {
        responses: [
          {
            is: {},
            behaviors: [
              { wait: -1 },
              { wait: true },
              { copy: { from: { a: 1, b: 2 }, into: 3, using: { method: 'css', selector: 'x' } } },
              { lookup: { key: { from: 'path' }, fromDataSource: { db: {} }, into: '${R}' } },
              { shellTransform: ['x'] },
              { sparkle: 1 },
              { wait: 1, decorate: 'function () {}' },
            ],
          },
        ],
      },
    ],
  };
  const [mb, svc] = await Promise.all(
    [p.mb, p.svc].map((side) => http('POST', `${side.admin}/imposters`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(invalid) })),
  );
  assert.is(svc.status, mb.status);
  const messages = (body: string) => JSON.parse(body).errors.map((e: { code: string; message: string }) => `${e.code}: ${e.message}`);
  assert.equal(messages(svc.body), messages(mb.body));
  assert.is(messages(mb.body).length, 10);
});

test('proxy validation: missing to, a path in to', async () => {
  const p = ready();
  for (const proxy of [{}, { to: 'http://localhost:1/abc' }]) {
    const imposter = { protocol: 'http', stubs: [{ responses: [{ proxy }] }] };
    const [mb, svc] = await Promise.all(
      [p.mb, p.svc].map((side) => http('POST', `${side.admin}/imposters`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(imposter) })),
    );
    assert.is(svc.status, mb.status);
    assert.is(JSON.parse(svc.body).errors[0].message, JSON.parse(mb.body).errors[0].message);
  }
});

test('proxyOnce: same answers, same recorded stub JSON, replayed alike once the origin changes', async () => {
  const sides = await createOnBoth(ready(), {
    protocol: 'http',
    stubs: [
      {
        responses: [
          {
            proxy: {
              to: upstream.origin,
              addWaitBehavior: true,
              predicateGenerators: [
                { matches: { method: true, path: true, query: { q: true } }, caseSensitive: true },
                { matches: { body: true }, jsonpath: { selector: '$.id' } },
                { matches: { query: true }, ignore: { query: 'ts' } },
              ],
            },
          },
        ],
      },
    ],
  });
  const requests = [post('/orders?q=A&ts=1', JSON.stringify({ id: 3 }), { 'content-type': 'application/json' })];
  await sameAnswers(sides, requests, 'proxyOnce first');
  const doc = await sameAdminJson(sides, '/imposters/{port}', 'recorded stubs');
  assert.is((doc.stubs as unknown[]).length, 2);
  upstream.handler = jsonHandler({ greeting: 'changed' });
  // `ignore` drops ts from the recorded deepEquals, so only a request without ts replays the recording.
  const replays = await sameAnswers(
    sides,
    [post('/orders?q=A', JSON.stringify({ id: 3, extra: true }), { 'content-type': 'application/json' }), ...requests],
    'proxyOnce replay',
  );
  assert.match(replays[0], /hello/);
  assert.match(replays[1], /changed/);
  await sameAdminJson(sides, '/imposters/{port}?replayable=true', 'replayable');
  await sameAdminJson(sides, '/imposters/{port}?replayable=true&removeProxies=true', 'replayable + removeProxies');
});

test('proxyAlways: responses appended to the matching recorded stub; savedProxyResponses cleared alike', async () => {
  let n = 0;
  upstream.handler = (_req, res) => {
    n += 1;
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`answer ${Math.ceil(n / 2)}`);
  };
  const sides = await createOnBoth(ready(), {
    protocol: 'http',
    stubs: [
      { predicates: [{ equals: { path: '/static' } }], responses: [{ is: { body: 'static' } }] },
      { responses: [{ proxy: { to: upstream.origin, mode: 'proxyAlways', predicateGenerators: [{ matches: { path: true } }] } }] },
    ],
  });
  await sameAnswers(sides, [get('/a'), get('/a'), get('/b'), get('/static')], 'proxyAlways');
  const doc = await sameAdminJson(sides, '/imposters/{port}', 'proxyAlways stubs');
  assert.is((doc.stubs as unknown[]).length, 4);
  await sameAdminJson(sides, '/imposters/{port}?replayable=true&removeProxies=true', 'removeProxies');
  const cleared = await sameAdminJson(sides, '/imposters/{port}/savedProxyResponses', 'DELETE savedProxyResponses', 'DELETE');
  assert.is((cleared.stubs as unknown[]).length, 2);
});

test('proxyTransparent with injectHeaders: the origin sees the same request from both', async () => {
  const sides = await createOnBoth(ready(), {
    protocol: 'http',
    stubs: [{ responses: [{ proxy: { to: upstream.origin, mode: 'proxyTransparent', injectHeaders: { 'X-Injected': 'yes' } } }] }],
  });
  const before = upstream.seen.length;
  await sameAnswers(sides, [get('/t?x=1', { 'X-Client': 'c' })], 'proxyTransparent');
  const [fromMb, fromSvc] = upstream.seen.slice(before);
  for (const key of ['x-injected', 'x-client', 'host']) assert.is(fromSvc.headers[key], fromMb.headers[key], key);
  assert.is(fromSvc.url, fromMb.url);
  await sameAdminJson(sides, '/imposters/{port}', 'nothing recorded');
});

test('an https origin with a self-signed certificate is proxied and recorded alike', async () => {
  const secure = await startUpstream('https', jsonHandler({ secure: true }));
  try {
    const sides = await createOnBoth(ready(), {
      protocol: 'http',
      stubs: [{ responses: [{ proxy: { to: secure.origin, predicateGenerators: [{ matches: { path: true } }] } }] }],
    });
    await sameAnswers(sides, [get('/s'), get('/s'), get('/t')], 'https origin');
    assert.is(secure.seen.length, 4, 'each side proxied /s once and /t once');
    await sameAdminJson(sides, '/imposters/{port}', 'https recordings');
  } finally {
    await secure.stop();
  }
});

test('binary origin bodies (image/png) are served and recorded alike', async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10]);
  upstream.handler = (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/png' });
    res.end(png);
  };
  const sides = await createOnBoth(ready(), { protocol: 'http', stubs: [{ responses: [{ proxy: { to: upstream.origin } }] }] });
  await sameAnswers(sides, [get('/img'), get('/img')], 'binary');
  const doc = await sameAdminJson(sides, '/imposters/{port}', 'binary recording');
  const recorded = (doc.stubs as Json[])[0].responses as Json[];
  assert.is((recorded[0].is as Json)._mode, 'binary');
});

test.run();

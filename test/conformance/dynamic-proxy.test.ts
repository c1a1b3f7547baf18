/**
 * Conformance: the proxy cases of mountebank's functional API suite (httpProxyStubTest), svc
 * against mountebank 2.9.1 side by side. Origins are imposters on the same side (addressed as
 * `localhost`, like mountebank's suite) or a plain node:http server where the case needs one.
 * Cases that need the internet (google.com) are played against local origins instead.
 *
 * Deliberate departures, asserted as such: `DELETE /imposters/{port}/requests` is the alias of
 * `savedRequests` (docs/recording-and-verify.md) where mountebank 2.9.1 routes it to `savedProxyResponses`; stubs
 * created over HTTP carry a generated `id` (docs/imposters.md).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { svcIsMountebank } from '../support/mountebank/pair.js';
import { startUpstream } from '../support/upstream.js';
import { admin, call, freePorts, onBoth, dynamicPairForSuite, view, type Answer } from '../support/mountebank/side-by-side.js';
import { tempDirForSuite } from '../support/temp-dir.js';

const test = suite('conformance: dynamic proxy');
const temp = tempDirForSuite(test, 'svc-conf-proxy-');

const ready = dynamicPairForSuite(test);

const get = (port: number, path = '/', headers: Record<string, string> = {}) => call({ port, path, headers });
const del = (port: number, path = '/') => call({ port, path, method: 'DELETE' });

/** An origin imposter answering from a stateful inject with what it saw. */
const countingOrigin = (port: number, what: string) => ({
  protocol: 'http',
  port,
  name: 'origin server',
  stubs: [{ responses: [{ inject: `(request, state) => { state.count = (state.count || 0) + 1; return { body: \`\${state.count}. ${what}\` }; }` }] }],
});

const proxyImposter = (port: number | undefined, proxy: object, extra: object = {}) => ({
  protocol: 'http',
  port,
  name: 'proxy',
  stubs: [{ responses: [{ proxy, ...extra }] }],
});

type Json = any;

/**
 * Replaces per-run values so both sides compare: the origin's Date, measured latencies, and this
 * side's imposter ports (`PORT<n>`, numbered by the caller's list).
 */
function masked(value: Json, ports: number[] = []): Json {
  if (Array.isArray(value)) return value.map((item) => masked(item, ports));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (k === 'Date' && typeof v === 'string') return [k, 'NOW'];
        if ((k === '_proxyResponseTime' || k === 'wait') && typeof v === 'number') return [k, '<ms>'];
        return [k, masked(v, ports)];
      }),
    );
  }
  if (typeof value === 'number' && ports.includes(value)) return `PORT${ports.indexOf(value)}`;
  if (typeof value === 'string')
    return value.replace(/(?<=:)\d+\b/g, (digits) => (ports.includes(Number(digits)) ? `PORT${ports.indexOf(Number(digits))}` : digits));
  return value;
}

/**
 * Recorded origin headers without the framing pair: an svc origin answers with Content-Length
 * where mountebank's streams chunked (test/support/mountebank/pair.ts), and the proxy records what it got.
 */
function unframed(value: Json): Json {
  if (Array.isArray(value)) return value.map(unframed);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !['content-length', 'transfer-encoding'].includes(k.toLowerCase()))
        .map(([k, v]) => [k, unframed(v)]),
    );
  }
  return value;
}

/** A stub as mountebank writes it back, without the read-only parts (links, match history, svc's generated id). */
function bare(stub: Json): Json {
  const { _links, matches, id, ...rest } = stub;
  void _links;
  void matches;
  void id;
  return rest;
}

test('the origin receives the same method, path, body and headers', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([origin, proxy]) => [{ protocol: 'http', port: origin, recordRequests: true }, proxyImposter(proxy!, { to: `http://localhost:${origin}` })],
    async (side, [origin, proxy]) => {
      const res = await call({ port: proxy!, path: '/PATH', method: 'POST', body: 'BODY', headers: { 'X-Key': 'TRUE' } });
      const requests = (await admin(side, 'GET', `/imposters/${origin}`)).json.requests as Json[];
      return { status: res.status, seen: requests.map((r) => ({ path: r.path, method: r.method, body: r.body, key: r.headers['X-Key'] })) };
    },
  );
  assert.equal(mb, { status: 200, seen: [{ path: '/PATH', method: 'POST', body: 'BODY', key: 'TRUE' }] });
  assert.equal(svc, mb);
});

for (const originProtocol of ['http', 'https'] as const) {
  test(`the proxied answer is returned (${originProtocol} origin)`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      2,
      ([origin, proxy]) => [
        { protocol: originProtocol, port: origin, stubs: [{ responses: [{ is: { statusCode: 400, body: 'ERROR' } }] }] },
        proxyImposter(proxy!, { to: `${originProtocol}://localhost:${origin}` }),
      ],
      async (_side, [, proxy]) => view(await get(proxy!)),
    );
    assert.is(mb.status, 400);
    assert.is(mb.body, 'ERROR');
    assert.equal(svc, mb);
  });
}

test('the Host header is rewritten to the origin', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([origin, proxy]) => [
      {
        protocol: 'http',
        port: origin,
        stubs: [{ predicates: [{ equals: { headers: { host: `localhost:${origin}` } } }], responses: [{ is: { statusCode: 400, body: 'ERROR' } }] }],
      },
      proxyImposter(proxy!, { to: `http://localhost:${origin}` }),
    ],
    async (_side, [, proxy]) => view(await get(proxy!, '/', { host: 'www.mbtest.org' })),
  );
  assert.is(mb.status, 400);
  assert.is(mb.body, 'ERROR');
  assert.equal(svc, mb);
});

test('an unresolvable origin answers 500 invalid proxy "Cannot resolve"', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    1,
    ([port]) => [proxyImposter(port!, { to: 'http://invalid.domain' })],
    async (_side, [port]) => {
      const res = await get(port!);
      return { status: res.status, code: res.json?.errors?.[0]?.code, message: res.json?.errors?.[0]?.message };
    },
  );
  assert.equal(mb, { status: 500, code: 'invalid proxy', message: 'Cannot resolve "http://invalid.domain"' });
  assert.equal(svc, mb);
});

// mountebank's suite expects 201 then a 500 'Unable to connect'; 2.9.1's dry run parses `to` as a URL and refuses it.
test('a proxy to that is not a URL is refused at creation, like mountebank 2.9.1', async () => {
  const imposter = proxyImposter(undefined, { to: '1 + 2' });
  const [mb, svc] = await Promise.all(ready().sides.map(async (side) => (await admin(side, 'POST', '/imposters', imposter)).status));
  assert.is(mb, 400);
  assert.is(svc, mb);
});

for (const mimeType of ['application/octet-stream', 'audio/mpeg', 'audio/mp4', 'image/gif', 'image/jpeg', 'video/avi', 'video/mpeg']) {
  test(`${mimeType} is proxied as binary`, async () => {
    const buffer = Buffer.from([0, 1, 2, 3]);
    const { mb, svc } = await onBoth(
      ready(),
      2,
      ([origin, proxy]) => [
        proxyImposter(proxy!, { to: `http://localhost:${origin}` }),
        {
          protocol: 'http',
          port: origin,
          stubs: [{ responses: [{ is: { body: buffer.toString('base64'), headers: { 'content-type': mimeType }, _mode: 'binary' } }] }],
        },
      ],
      async (side, [, proxy]) => {
        const res = await get(proxy!);
        const recorded = (await admin(side, 'GET', `/imposters/${proxy}`)).json.stubs[0].responses[0].is;
        return { bytes: [...res.bodyBytes], mode: recorded._mode, body: recorded.body };
      },
    );
    assert.equal(mb, { bytes: [0, 1, 2, 3], mode: 'binary', body: buffer.toString('base64') });
    assert.equal(svc, mb);
  });
}

test('proxyOnce records new stubs in order in front of the proxy', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      countingOrigin(origin!, '${request.method} ${request.path}'),
      proxyImposter(proxy!, { to: `http://localhost:${origin}`, mode: 'proxyOnce', predicateGenerators: [{ matches: { method: true, path: true } }] }),
    ],
    async (side, ports) => {
      const [proxy] = ports;
      const bodies: string[] = [];
      for (let round = 0; round < 2; round += 1) {
        bodies.push((await get(proxy!, '/first')).body, (await del(proxy!, '/first')).body, (await get(proxy!, '/second')).body);
      }
      const deleted = await admin(side, 'DELETE', `/imposters/${proxy}`);
      return { bodies, stubs: (deleted.json.stubs as Json[]).map((s) => unframed(masked(bare(s), ports))) };
    },
  );
  assert.equal(mb.bodies, ['1. GET /first', '2. DELETE /first', '3. GET /second', '1. GET /first', '2. DELETE /first', '3. GET /second']);
  assert.is(mb.stubs.length, 4);
  assert.equal(svc, mb);
});

test('an inject predicate generator creates the recorded predicates', async () => {
  const fn = 'function (config) { const pathParts = config.request.path.split("/").splice(1); return pathParts.map(part => ({ contains: { path: part } })); }';
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      { protocol: 'http', port: origin, name: 'origin server', stubs: [{ responses: [{ is: { body: 'ORIGIN' } }] }] },
      proxyImposter(proxy!, { to: `http://localhost:${origin}`, predicateGenerators: [{ inject: fn }] }),
    ],
    async (side, [proxy]) => {
      const body = (await get(proxy!, '/first/third')).body;
      const stubs = (await admin(side, 'GET', `/imposters/${proxy}`)).json.stubs as Json[];
      return { body, predicates: stubs[0].predicates };
    },
  );
  assert.equal(mb, { body: 'ORIGIN', predicates: [{ contains: { path: 'first' } }, { contains: { path: 'third' } }] });
  assert.equal(svc, mb);
});

const alwaysGenerators: Array<[string, object[]]> = [
  ['path', [{ matches: { path: true } }]],
  ['path and method, caseSensitive false', [{ matches: { path: true, method: true }, caseSensitive: false }]],
];
for (const [name, predicateGenerators] of alwaysGenerators) {
  test(`proxyAlways groups the recorded responses by the generated predicates (${name})`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      2,
      ([proxy, origin]) => [
        countingOrigin(origin!, '${request.path}'),
        proxyImposter(proxy!, { to: `http://localhost:${origin}`, mode: 'proxyAlways', predicateGenerators }),
      ],
      async (side, ports) => {
        const [proxy] = ports;
        for (const path of ['/first', '/second', '/first']) await get(proxy!, path);
        const stubs = (await admin(side, 'DELETE', `/imposters/${proxy}`)).json.stubs as Json[];
        return {
          count: stubs.length,
          recorded: stubs.slice(1).map((s) => s.responses.map((r: Json) => r.is.body)),
          stubs: stubs.map((s) => unframed(masked(bare(s), ports))),
        };
      },
    );
    assert.is(mb.count, 3);
    assert.equal(mb.recorded, [['1. /first', '3. /first'], ['2. /second']]);
    assert.equal(svc, mb);
  });
}

const queryGenerators: Array<[string, object, string[], string[]]> = [
  [
    'the whole query object',
    { query: true },
    ['/?first=1&second=2', '/?first=1', '/?first=2&second=2', '/?first=1&second=2'],
    ['1. {"first":"1","second":"2"}', '2. {"first":"1"}', '3. {"first":"2","second":"2"}', '1. {"first":"1","second":"2"}'],
  ],
  [
    'one query key',
    { query: { first: true } },
    ['/?first=1&second=2', '/?first=2&second=2', '/?first=3&second=2', '/?first=1&second=2&third=3'],
    ['1. {"first":"1","second":"2"}', '2. {"first":"2","second":"2"}', '3. {"first":"3","second":"2"}', '1. {"first":"1","second":"2"}'],
  ],
];
for (const [name, matches, paths, expected] of queryGenerators) {
  test(`proxyOnce predicate generators on ${name}`, async () => {
    const { mb, svc } = await onBoth(
      ready(),
      2,
      ([proxy, origin]) => [
        countingOrigin(origin!, '${JSON.stringify(request.query)}'),
        proxyImposter(proxy!, { to: `http://localhost:${origin}`, mode: 'proxyOnce', predicateGenerators: [{ matches }] }),
      ],
      async (side, [proxy]) => {
        const bodies: string[] = [];
        for (const path of paths) bodies.push((await get(proxy!, path)).body);
        const stubs = (await admin(side, 'GET', `/imposters/${proxy}`)).json.stubs as Json[];
        return { bodies, predicates: stubs.map((s) => s.predicates) };
      },
    );
    assert.equal(mb.bodies, expected);
    assert.equal(svc, mb);
  });
}

test('behaviors on a proxy response (decorate, shellTransform, copy) apply to every answer', async () => {
  const exec = join(temp.path, 'salutation.cjs');
  writeFileSync(exec, "console.log(process.argv[3].replace('${SALUTATION}', 'Hello'));\n");
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      { protocol: 'http', port: origin, name: 'origin', stubs: [{ responses: [{ is: { body: '${SALUTATION} ${NAME}' } }] }] },
      proxyImposter(
        proxy!,
        { to: `http://localhost:${origin}` },
        {
          _behaviors: {
            decorate: "(request, response) => { response.headers['X-Test'] = 'decorated'; }",
            shellTransform: `node ${exec}`,
            copy: [{ from: 'path', into: '${NAME}', using: { method: 'regex', selector: '\\w+' } }],
          },
        },
      ),
    ],
    async (_side, [proxy]) => {
      const answers: Array<{ body: string; test: unknown }> = [];
      for (const path of ['/mountebank', '/world']) {
        const res = await get(proxy!, path);
        answers.push({ body: res.body, test: res.headers['x-test'] });
      }
      return answers;
    },
  );
  assert.equal(mb, [
    { body: 'Hello mountebank', test: 'decorated' },
    { body: 'Hello mountebank', test: 'decorated' },
  ]);
  assert.equal(svc, mb);
});

test('addWaitBehavior records the origin latency as a wait equal to _proxyResponseTime', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      { protocol: 'http', port: origin, name: 'origin', stubs: [{ responses: [{ is: { body: 'origin server' }, _behaviors: { wait: 100 } }] }] },
      proxyImposter(proxy!, { to: `http://localhost:${origin}`, addWaitBehavior: true }),
    ],
    async (side, [proxy]) => {
      const body = (await get(proxy!)).body;
      const recorded = (await admin(side, 'GET', `/imposters/${proxy}`)).json.stubs[0].responses[0];
      const wait = recorded.behaviors?.[0]?.wait;
      return { body, sameAsResponseTime: wait === recorded.is._proxyResponseTime, atLeastOrigin: wait >= 90, shape: unframed(masked(recorded)) };
    },
  );
  assert.equal(
    { body: mb.body, sameAsResponseTime: mb.sameAsResponseTime, atLeastOrigin: mb.atLeastOrigin },
    { body: 'origin server', sameAsResponseTime: true, atLeastOrigin: true },
  );
  assert.equal(svc, mb);
});

test('replayable JSON with proxies removed keeps the recorded responses for playback', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      countingOrigin(origin!, '${request.path}'),
      proxyImposter(proxy!, { to: `http://localhost:${origin}`, mode: 'proxyAlways', predicateGenerators: [{ matches: { path: true } }] }),
    ],
    async (side, [proxy, origin]) => {
      for (const path of ['/first', '/second', '/first']) await get(proxy!, path);
      await admin(side, 'DELETE', `/imposters/${origin}`);
      return masked((await admin(side, 'GET', '/imposters?replayable=true&removeProxies=true')).json, [proxy!, origin!]);
    },
  );
  const recorded = (body: string) => ({
    is: { statusCode: 200, headers: { Connection: 'close', Date: 'NOW', 'Transfer-Encoding': 'chunked' }, body, _mode: 'text' },
  });
  assert.equal(mb, {
    imposters: [
      {
        protocol: 'http',
        port: 'PORT0',
        name: 'proxy',
        recordRequests: false,
        stubs: [
          { predicates: [{ deepEquals: { path: '/first' } }], responses: [recorded('1. /first'), recorded('3. /first')] },
          { predicates: [{ deepEquals: { path: '/second' } }], responses: [recorded('2. /second')] },
        ],
      },
    ],
  });
  assert.equal(unframed(svc), unframed(mb));
});

test('a binary origin body (content-encoding gzip) is proxied byte for byte', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      {
        protocol: 'http',
        port: origin,
        name: 'origin',
        stubs: [{ responses: [{ is: { body: Buffer.from([0, 1, 2, 3]).toString('base64'), headers: { 'content-encoding': 'gzip' }, _mode: 'binary' } }] }],
      },
      proxyImposter(proxy!, { to: `http://localhost:${origin}` }),
    ],
    async (_side, [proxy]) => [...(await get(proxy!)).bodyBytes],
  );
  assert.equal(mb, [0, 1, 2, 3]);
  assert.equal(svc, mb);
});

test('a decorated proxy response is recorded decorated, the decorator running once', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      { protocol: 'http', port: origin, name: 'origin', stubs: [{ responses: [{ is: { body: 'origin server' } }] }] },
      proxyImposter(proxy!, { to: `http://localhost:${origin}` }, { _behaviors: { decorate: "(request, response) => { response.body += ' decorated'; }" } }),
    ],
    async (side, [proxy]) => {
      const body = (await get(proxy!)).body;
      const recorded = (await admin(side, 'GET', `/imposters/${proxy}`)).json.stubs[0].responses[0].is.body;
      return { body, recorded };
    },
  );
  assert.equal(mb, { body: 'origin server decorated', recorded: 'origin server decorated' });
  assert.equal(svc, mb);
});

test('origin header names keep their case', async () => {
  const origin = await startUpstream('http', (_req, res) => {
    res.writeHead(301, [
      ['Location', 'http://www.example.org/'],
      ['Content-Type', 'text/html'],
      ['X-Frame-Options', 'SAMEORIGIN'],
      ['Server', 'origin'],
    ]);
    res.end('moved');
  });
  try {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      ([proxy]) => [proxyImposter(proxy!, { to: origin.origin })],
      async (_side, [proxy]) => {
        const res = await get(proxy!);
        const names = res.rawHeaders.filter((_, i) => i % 2 === 0 && !['Date', 'Keep-Alive'].includes(res.rawHeaders[i]!));
        return { status: res.status, names, location: res.headers.location };
      },
    );
    assert.is(mb.status, 301);
    assert.ok(
      mb.names.every((name) => name[0] === name[0]!.toUpperCase()),
      mb.names.join(),
    );
    assert.equal(svc, mb);
  } finally {
    await origin.stop();
  }
});

test('injectHeaders reach the origin, Host included', async () => {
  const mirror = '(request, response) => { response.headers = request.headers; }';
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      { protocol: 'http', port: origin, name: 'mirror stub', stubs: [{ responses: [{ is: { body: '' }, _behaviors: { decorate: mirror } }] }] },
      proxyImposter(proxy!, { to: `http://localhost:${origin}`, injectHeaders: { 'X-Forwarded-Host': 'http://www.google.com', Host: 'colbert' } }),
    ],
    async (_side, [proxy]) => {
      const res = await get(proxy!);
      return { forwarded: res.headers['x-forwarded-host'], host: res.headers.host };
    },
  );
  assert.equal(mb, { forwarded: 'http://www.google.com', host: 'colbert' });
  assert.equal(svc, mb);
});

test('a proxied request with a Content-Length is not re-framed as chunked (mountebank issue 132)', async () => {
  const fn =
    '(request, state, logger) => { const has = (name) => Object.keys(request.headers).some((h) => h.toLowerCase() === name.toLowerCase()); '
    + "return { body: 'Encoding: ' + (has('Transfer-Encoding') ? 'chunked' : has('Content-Length') ? 'content-length' : '') }; }";
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      { protocol: 'http', port: origin, name: 'origin', stubs: [{ responses: [{ inject: fn }] }] },
      proxyImposter(proxy!, {
        to: `http://localhost:${origin}`,
        mode: 'proxyAlways',
        predicateGenerators: [{ matches: { method: true, path: true, query: true } }],
      }),
    ],
    async (_side, [proxy]) => (await call({ port: proxy!, method: 'PUT', path: '/', body: 'TEST', headers: { 'Content-Length': '4' } })).body,
  );
  assert.is(mb, 'Encoding: content-length');
  assert.is(svc, mb);
});

test('addDecorateBehavior decorates the recorded response, not the first answer', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      { protocol: 'http', port: origin, name: 'origin', stubs: [{ responses: [{ is: { body: 'origin server' } }] }] },
      proxyImposter(proxy!, { to: `http://localhost:${origin}`, addDecorateBehavior: "(request, response) => { response.body += ' decorated'; }" }),
    ],
    async (_side, [proxy]) => [(await get(proxy!)).body, (await get(proxy!)).body],
  );
  assert.equal(mb, ['origin server', 'origin server decorated']);
  assert.equal(svc, mb);
});

test('DELETE savedProxyResponses removes the recorded stubs and keeps the configured ones', async () => {
  const stubs = [
    { responses: [{ is: { body: 'first stub' } }], predicates: [{ equals: { body: 'fail match so we fall through to proxy' } }] },
    { responses: [{ proxy: { to: 'ORIGIN', mode: 'proxyAlways' } }] },
    { responses: [{ is: { body: 'second stub' } }] },
  ];
  const withOrigin = (origin: number) => JSON.parse(JSON.stringify(stubs).replace('ORIGIN', `http://localhost:${origin}`));
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      { protocol: 'http', port: origin, name: 'origin', stubs: [{ responses: [{ is: { body: 'origin server' } }] }] },
      { protocol: 'http', port: proxy, name: 'proxy', stubs: withOrigin(origin!) },
    ],
    async (side, [proxy, origin]) => {
      const body = (await get(proxy!)).body;
      const cleared = await admin(side, 'DELETE', `/imposters/${proxy}/savedProxyResponses`);
      const after = (await admin(side, 'GET', `/imposters/${proxy}`)).json.stubs as Json[];
      return { body, status: cleared.status, same: JSON.stringify(after.map(bare)) === JSON.stringify(withOrigin(origin!)) };
    },
  );
  assert.equal(mb, { body: 'origin server', status: 200, same: true });
  assert.equal(svc, mb);
});

test('DELETE /imposters/{port}/requests clears recorded requests in svc (docs/recording-and-verify.md alias), keeping proxy recordings', async () => {
  if (svcIsMountebank) return;
  const svcSide = ready().sides[1];
  const [proxy, origin] = await freePorts(2);
  for (const imposter of [
    { protocol: 'http', port: origin, stubs: [{ responses: [{ is: { body: 'origin server' } }] }] },
    { protocol: 'http', port: proxy, recordRequests: true, stubs: [{ responses: [{ proxy: { to: `http://localhost:${origin}`, mode: 'proxyAlways' } }] }] },
  ])
    assert.is((await admin(svcSide, 'POST', '/imposters', imposter)).status, 201);
  await get(proxy!);
  assert.is((await admin(svcSide, 'DELETE', `/imposters/${proxy}/requests`)).status, 200);
  const doc = (await admin(svcSide, 'GET', `/imposters/${proxy}`)).json;
  assert.is(doc.requests.length, 0);
  assert.is(doc.stubs.length, 2);
});

test('the query string is forwarded as received (mountebank issue 410)', async () => {
  const origin = await startUpstream('http', (req, res) => res.end(req.url));
  try {
    const { mb, svc } = await onBoth(
      ready(),
      1,
      ([proxy]) => [proxyImposter(proxy!, { to: origin.origin, mode: 'proxyAlways' })],
      async (_side, [proxy]) => [(await get(proxy!, '/path?WSDL')).body, (await get(proxy!, '/path?WSDL=')).body],
    );
    assert.equal(mb, ['/path?WSDL', '/path?WSDL=']);
    assert.equal(svc, mb);
  } finally {
    await origin.stop();
  }
});

test('a JSON origin body is recorded as JSON (mountebank issue 656)', async () => {
  const { mb, svc } = await onBoth(
    ready(),
    2,
    ([proxy, origin]) => [
      { protocol: 'http', port: origin, name: 'origin', stubs: [{ responses: [{ is: { body: { json: true } } }] }] },
      proxyImposter(proxy!, { to: `http://localhost:${origin}` }),
    ],
    async (side, [proxy]) => {
      const answer: Answer = await get(proxy!);
      const recorded = (await admin(side, 'GET', `/imposters/${proxy}`)).json.stubs[0].responses[0].is.body;
      return { body: answer.body, recorded };
    },
  );
  assert.equal(mb, { body: '{\n    "json": true\n}', recorded: { json: true } });
  assert.equal(svc, mb);
});

test.run();

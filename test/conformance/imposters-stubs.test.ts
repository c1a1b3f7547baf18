/**
 * Conformance with mountebank 2.9.1's functional API tests for the imposter/stub core (imposter
 * lifecycle, imposters and home controllers, canned stubs), each case run on mountebank and on svc
 * through a mountebank-style client (test/support/mountebank/mb-client.ts). Observations are normalised
 * (test/support/mountebank/pair.ts) and mountebank's must be contained in svc's; where SPEC deliberately
 * differs the case says so and asserts SPEC's behaviour instead.
 */
import { gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { missingFrom, normalizeAdmin, pairForSuite, svcIsMountebank, type Side } from '../support/mountebank/pair.js';
import { failureCode, freePorts, mbApi, mbClient, type MbApi, type MbClient } from '../support/mountebank/mb-client.js';

const test = suite('conformance: imposters and stubs');
const ready = pairForSuite(test);

interface Ctx {
  side: Side;
  api: MbApi;
  /** Three free ports of this side, ascending. */
  ports: [number, number, number];
  http: MbClient;
  https: MbClient;
}

/** Runs `scenario` on mountebank, then on svc, with fresh clients; returns both observations normalised. */
async function onBoth<T>(scenario: (ctx: Ctx) => Promise<T>): Promise<{ mb: any; svc: any; raw: [T, T] }> {
  const p = ready();
  const run = async (side: Side) => {
    const ports = (await freePorts(3)) as [number, number, number];
    const clients = { http: mbClient('http'), https: mbClient('https') };
    try {
      const value = await scenario({ side, api: mbApi(side.server, clients.http), ports, ...clients });
      return { value, normalised: normalizeAdmin(value, side, ports) };
    } finally {
      clients.http.close();
      clients.https.close();
    }
  };
  const mb = await run(p.mb);
  const svc = await run(p.svc);
  return { mb: mb.normalised, svc: svc.normalised, raw: [mb.value, svc.value] };
}

/** mountebank's normalised observation contained in svc's. */
function assertContained(mb: unknown, svc: unknown, label: string): void {
  assert.equal(missingFrom(mb, svc), [], `${label}: mountebank's observation is not contained in ${ready().svc.name}'s`);
}

const PROTOCOLS = ['http', 'https'] as const;
const PREFLIGHT = { 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'X-Custom-Header', Origin: 'localhost:8080' };
const corsHeaders = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('access-control-')));

// ---------------------------------------------------------------- httpImposterTest

for (const protocol of PROTOCOLS) {
  test(`${protocol}: an imposter without port gets one and answers there`, async () => {
    const { raw } = await onBoth(async ({ api, ...ctx }) => {
      const created = await api.post('/imposters', { protocol });
      const answer = await ctx[protocol].get('/first', created.body.port);
      return { status: created.status, port: created.body.port as number, answer: answer.status };
    });
    for (const observed of raw) assert.equal([observed.status, observed.answer], [201, 200]);
    // docs/imposters.md: auto-assigned ports come from 49152-65535.
    if (!svcIsMountebank) assert.ok(raw[1].port >= 49152 && raw[1].port <= 65535, `port ${raw[1].port}`);
  });

  test(`${protocol}: CORS preflight answered only with allowCORS and the preflight headers`, async () => {
    const { mb, svc } = await onBoth(async ({ api, ports, ...ctx }) => {
      const client = ctx[protocol];
      await api.post('/imposters', { protocol, port: ports[0] });
      await api.post('/imposters', { protocol, port: ports[1], allowCORS: true });
      const off = await client.request({ method: 'OPTIONS', path: '/', port: ports[0], headers: PREFLIGHT });
      const on = await client.request({ method: 'OPTIONS', path: '/', port: ports[1], headers: PREFLIGHT });
      const notPreflight = await client.request({ method: 'OPTIONS', path: '/', port: ports[1] });
      return [off, on, notPreflight].map((res) => ({ status: res.status, cors: corsHeaders(res.headers) }));
    });
    assert.equal(svc, mb);
    assert.equal(svc[1].cors, {
      'access-control-allow-headers': 'X-Custom-Header',
      'access-control-allow-methods': 'PUT',
      'access-control-allow-origin': 'localhost:8080',
    });
    assert.equal([svc[0].cors, svc[2].cors], [{}, {}]);
  });

  test(`${protocol}: GET /imposters/:port lists requests, keeps header case, counts without recording`, async () => {
    const { mb, svc } = await onBoth(async ({ api, ports, ...ctx }) => {
      const client = ctx[protocol];
      await api.post('/imposters', { protocol, port: ports[0], recordRequests: true });
      await api.post('/imposters', { protocol, port: ports[1], stubs: [{ responses: [{ is: { body: 'SUCCESS' } }] }] });
      await client.get('/first', ports[0]);
      await client.request({ method: 'GET', path: '/second', port: ports[0], headers: { Accept: 'APPLICATION/json' } });
      await client.get('/', ports[1]);
      await client.get('/', ports[1]);
      const recorded = (await api.get(`/imposters/${ports[0]}`)).body;
      const counted = (await api.get(`/imposters/${ports[1]}`)).body;
      return {
        paths: recorded.requests.map((r: { path: string }) => r.path),
        accept: recorded.requests[1].headers.Accept,
        counted: { numberOfRequests: counted.numberOfRequests, requests: counted.requests },
      };
    });
    assertContained(mb, svc, 'requests');
    assert.equal(svc.paths, ['/first', '/second']);
    assert.is(svc.accept, 'APPLICATION/json');
    assert.equal(svc.counted, { numberOfRequests: 2, requests: [] });
  });

  test(`${protocol}: GET /imposters/:port returns stubs in order with their links; unknown port is 404`, async () => {
    const { mb, svc } = await onBoth(async ({ api, ports }) => {
      await api.post('/imposters', { protocol, port: ports[0], stubs: [{ responses: [{ is: { body: '1' } }] }, { responses: [{ is: { body: '2' } }] }] });
      const detail = await api.get(`/imposters/${ports[0]}`);
      const unknown = await api.get(`/imposters/${ports[2]}`);
      return { status: detail.status, stubs: detail.body.stubs, unknown: unknown.status };
    });
    assertContained(mb, svc, 'stubs');
    assert.equal(
      svc.stubs.map((s: { responses: unknown; _links: unknown }) => [s.responses, s._links]),
      [
        [[{ is: { body: '1' } }], { self: { href: 'http://ADMIN/imposters/PORT0/stubs/0' } }],
        [[{ is: { body: '2' } }], { self: { href: 'http://ADMIN/imposters/PORT0/stubs/1' } }],
      ],
    );
    assert.is(svc.unknown, 404);
  });

  test(`${protocol}: DELETE /imposters/:port frees the port, pooled keep-alive sockets included; unknown port per SPEC`, async () => {
    const { mb, svc } = await onBoth(async ({ api, ports, ...ctx }) => {
      const client = ctx[protocol];
      const created = await api.post('/imposters', {
        protocol,
        port: ports[0],
        stubs: [{ responses: [{ is: { headers: { Connection: 'keep-alive' }, body: 'old' } }] }],
      });
      const before = (await client.get('/', ports[0])).body;
      const deleted = await api.del(created.headers.location!);
      const again = await api.post('/imposters', { protocol, port: ports[0], stubs: [{ responses: [{ is: { body: 'new' } }] }] });
      // The agent's pooled socket was to the deleted imposter: the next request must reach the new one.
      const after = (await client.get('/', ports[0])).body;
      const unknown = await api.del(`/imposters/${ports[2]}`);
      return { before, deleted: deleted.status, again: again.status, after, unknown: unknown.status };
    });
    assert.equal({ ...svc, unknown: mb.unknown }, mb);
    assert.equal([svc.before, svc.deleted, svc.again, svc.after], ['old', 200, 201, 'new']);
    // docs/imposters.md: DELETE of an unknown port is 404 (mountebank answers 200 {}).
    assert.is(mb.unknown, 200);
    assert.is(svc.unknown, svcIsMountebank ? 200 : 404);
  });

  test(`${protocol}: DELETE /imposters/:port?removeProxies=true&replayable=true`, async () => {
    const { mb, svc } = await onBoth(async ({ api, ports }) => {
      await api.post('/imposters', {
        protocol: 'http',
        port: ports[0],
        name: 'impoter',
        stubs: [{ responses: [{ proxy: { to: 'http://www.google.com' } }, { is: { body: 'Hello, World!' } }] }],
      });
      const res = await api.del(`/imposters/${ports[0]}?removeProxies=true&replayable=true`);
      return { status: res.status, body: res.body };
    });
    assertContained(mb, svc, 'deleted');
    assert.equal(mb, {
      status: 200,
      body: { protocol: 'http', port: 'PORT0', name: 'impoter', recordRequests: false, stubs: [{ responses: [{ is: { body: 'Hello, World!' } }] }] },
    });
    assert.equal(Object.keys(svc.body).sort(), ['name', 'port', 'protocol', 'recordRequests', 'stubs']);
  });

  test(`${protocol}: DELETE /imposters/:port/savedRequests empties requests and the count`, async () => {
    const { mb, svc } = await onBoth(async ({ api, ports, ...ctx }) => {
      await api.post('/imposters', { protocol, port: ports[0], recordRequests: true });
      await ctx[protocol].get('/first', ports[0]);
      const before = (await api.get(`/imposters/${ports[0]}`)).body;
      const cleared = await api.del(`/imposters/${ports[0]}/savedRequests`);
      const after = (await api.get(`/imposters/${ports[0]}`)).body;
      return {
        before: before.requests.map((r: { path: string }) => r.path),
        cleared: cleared.status,
        clearedBody: { requests: cleared.body.requests, numberOfRequests: cleared.body.numberOfRequests },
        after: { requests: after.requests, numberOfRequests: after.numberOfRequests },
      };
    });
    assertContained(mb, svc, 'savedRequests');
    assert.equal(svc, { before: ['/first'], cleared: 200, clearedBody: { requests: [], numberOfRequests: 0 }, after: { requests: [], numberOfRequests: 0 } });
  });
}

// ---------------------------------------------------------------- impostersControllerTest, homeControllerTest

test('POST /imposters: Location is _links.self.href and GET of it returns the created body', async () => {
  const { mb, svc, raw } = await onBoth(async ({ api, ports, http }) => {
    const created = await api.post('/imposters', { protocol: 'http', port: ports[0] });
    const fetched = await api.get(created.headers.location!);
    const served = await http.get('/', ports[0]);
    return {
      location: created.headers.location,
      self: created.body._links.self.href,
      status: fetched.status,
      created: created.body,
      fetched: fetched.body,
      served: served.status,
    };
  });
  assertContained(mb, svc, 'hypermedia');
  assert.is(svc.location, 'http://ADMIN/imposters/PORT0');
  assert.is(svc.self, svc.location);
  assert.equal(raw[1].fetched, raw[1].created);
  assert.is(svc.served, 200);
});

test('a GET /imposters/:port document posted back recreates the imposter; its output-only fields do not become config', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, http }) => {
    await api.post('/imposters', { protocol: 'http', port: ports[0], name: 'copied', stubs: [{ responses: [{ is: { body: 'x' } }] }] });
    await http.get('/', ports[0]);
    const detail = (await api.get(`/imposters/${ports[0]}`)).body;
    await api.del(`/imposters/${ports[0]}`);
    const reposted = await api.post('/imposters', detail);
    const served = (await http.get('/', ports[0])).body;
    const replayable = (await api.get(`/imposters/${ports[0]}?replayable=true`)).body;
    return { status: reposted.status, served, replayable: { ...replayable, stubs: replayable.stubs.map((s: { responses: unknown }) => s.responses) } };
  });
  assertContained(mb, svc, 'reposted detail');
  assert.equal(svc.status, 201);
  assert.is(svc.served, 'x');
  // Only config reads back: no counts, state or stub analysis from the posted document.
  assert.equal(Object.keys(svc.replayable).sort(), ['name', 'port', 'protocol', 'recordRequests', 'stubs']);
});

test('POST /imposters errors: invalid JSON envelope, port taken by the admin API, empty body per SPEC', async () => {
  const { mb, svc } = await onBoth(async ({ api, side }) => {
    const invalid = await api.post('/imposters', 'invalid');
    const conflict = await api.post('/imposters', { protocol: 'http', port: side.server.adminPort });
    const empty = await api.post('/imposters', {});
    return { invalid: { status: invalid.status, body: invalid.body }, conflict: conflict.status, empty: empty.status };
  });
  assertContained(mb.invalid, svc.invalid, 'invalid JSON');
  assert.equal(mb.invalid.body, { errors: [{ code: 'invalid JSON', message: 'Unable to parse body as JSON', source: 'invalid' }] });
  assert.equal([svc.invalid.status, svc.conflict], [400, 400]);
  // docs/imposters.md: protocol defaults to http, so `{}` creates an imposter (mountebank: 400 'protocol' is required).
  assert.is(mb.empty, 400);
  assert.is(svc.empty, svcIsMountebank ? 400 : 201);
});

test('POST /imposters: a JSON body sent as a form or text content type is still JSON (ts-mountebank)', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, http }) => {
    const statuses: number[] = [];
    for (const [i, type] of ['application/x-www-form-urlencoded', 'text/plain'].entries()) {
      const res = await http.request({
        method: 'POST',
        port: api.port,
        path: '/imposters',
        headers: { 'Content-Type': type },
        body: JSON.stringify({ protocol: 'http', port: ports[i], stubs: [{ responses: [{ is: { body: 'ok' } }] }] }),
      });
      statuses.push(res.status, (await http.get('/', ports[i]!)).status);
    }
    return statuses;
  });
  assert.equal(svc, mb);
  assert.equal(svc, [201, 200, 201, 200]);
});

test('DELETE /imposters: empty list, replayable body, and keep-alive sockets closed', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, http }) => {
    const none = await api.del('/imposters');
    await api.post('/imposters', { protocol: 'http', port: ports[0], name: 'imposter 1' });
    // A stub that keeps the connection open, so the pooled socket must be closed by the delete.
    await api.post('/imposters', {
      protocol: 'http',
      port: ports[1],
      name: 'imposter 1',
      stubs: [{ responses: [{ is: { headers: { Connection: 'keep-alive' } } }] }],
    });
    await http.get('/', ports[0]);
    await http.get('/', ports[1]);
    const all = await api.del('/imposters');
    return {
      none: { status: none.status, body: none.body },
      all: { status: all.status, body: all.body },
      after: await failureCode(http.get('/', ports[0])),
      afterKeepAlive: await failureCode(http.get('/', ports[1])),
    };
  });
  assertContained(mb, svc, 'DELETE /imposters');
  assert.equal(svc.none, { status: 200, body: { imposters: [] } });
  // Replayable snapshots; svc's stubs also carry their generated id (docs/imposters.md).
  assert.equal(
    missingFrom(
      {
        imposters: [
          { protocol: 'http', port: 'PORT0', name: 'imposter 1', recordRequests: false, stubs: [] },
          {
            protocol: 'http',
            port: 'PORT1',
            name: 'imposter 1',
            recordRequests: false,
            stubs: [{ responses: [{ is: { headers: { Connection: 'keep-alive' } } }] }],
          },
        ],
      },
      svc.all.body,
    ),
    [],
  );
  assert.is(svc.after, 'ECONNREFUSED');
  assert.is(svc.afterKeepAlive, 'ECONNREFUSED');
});

test('DELETE /imposters?removeProxies=true&replayable=false: detail snapshots without proxy stubs', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports }) => {
    await api.post('/imposters', { protocol: 'http', port: ports[0], name: 'imposter-is', stubs: [{ responses: [{ is: { body: 'Hello, World!' } }] }] });
    await api.post('/imposters', {
      protocol: 'http',
      port: ports[1],
      name: 'imposter-proxy',
      stubs: [{ responses: [{ proxy: { to: 'http://www.google.com' } }] }],
    });
    const res = await api.del('/imposters?removeProxies=true&replayable=false');
    return { status: res.status, body: res.body };
  });
  assertContained(mb, svc, 'DELETE /imposters non-replayable');
  const [is, proxy] = svc.body.imposters;
  assert.equal([is.numberOfRequests, is.requests, is.stubs.length, proxy.stubs], [0, [], 1, []]);
  assert.equal(proxy._links, { self: { href: 'http://ADMIN/imposters/PORT1' }, stubs: { href: 'http://ADMIN/imposters/PORT1/stubs' } });
});

test('PUT /imposters creates every imposter and overwrites the previous set', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, http }) => {
    // mountebank's own test starts from an smtp imposter; svc serves http/https only (docs/cli.md).
    await api.post('/imposters', { protocol: 'http', port: ports[0], name: 'old', stubs: [{ responses: [{ is: { body: 'old' } }] }] });
    const put = await api.put('/imposters', { imposters: ports.map((port, i) => ({ protocol: 'http', port, name: `imposter ${i + 1}` })) });
    const served = [];
    for (const port of ports) {
      const res = await http.get('/', port);
      served.push([res.status, res.body]);
    }
    return { status: put.status, names: put.body.imposters.map((i: { name: string }) => i.name), served };
  });
  assertContained(mb, svc, 'PUT /imposters');
  assert.equal(svc, {
    status: 200,
    names: ['imposter 1', 'imposter 2', 'imposter 3'],
    served: [
      [200, ''],
      [200, ''],
      [200, ''],
    ],
  });
});

test('null optional fields (as typed clients serialise unset ones) and a 0 statusCode are read as absent; a null repeat is still refused', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, http, https }) => {
    const nullStub = {
      predicates: null,
      responses: [{ is: { statusCode: null, headers: null, body: null, _mode: null }, _behaviors: null, proxy: null, inject: null, fault: null }],
    };
    const statuses = [
      (await api.post('/imposters', { protocol: 'http', port: ports[0], name: null, recordRequests: null, stubs: [nullStub] })).status,
      (await api.post('/imposters', { protocol: 'https', port: ports[1], defaultResponse: null, key: null, cert: null })).status,
      (
        await api.post('/imposters', {
          protocol: 'http',
          port: ports[2],
          defaultResponse: { statusCode: null, headers: null, body: 'default' },
          stubs: [{ predicates: [{ equals: { path: '/x' } }], responses: [{ is: { body: 'x' } }] }],
        })
      ).status,
    ];
    const served = [];
    for (const [client, port] of [
      [http, ports[0]],
      [https, ports[1]],
      [http, ports[2]],
    ] as const) {
      const res = await client.get('/', port);
      served.push([res.status, res.body]);
    }
    const repeat = await api.post(`/imposters/${ports[0]}/stubs`, { stub: { responses: [{ is: {}, repeat: null }] } });
    // A falsy statusCode is absent too (mountebank serves `statusCode || default`).
    const zero = await api.post(`/imposters/${ports[2]}/stubs`, {
      index: 0,
      stub: { predicates: [{ equals: { path: '/zero' } }], responses: [{ is: { statusCode: 0, body: 'zero' } }] },
    });
    const zeroServed = await http.get('/zero', ports[2]);
    return { statuses, served, repeat: repeat.status, zero: [zero.status, zeroServed.status, zeroServed.body] };
  });
  assert.equal(svc, mb);
  assert.equal(svc, {
    statuses: [201, 201, 201],
    served: [
      [200, ''],
      [200, ''],
      [200, 'default'],
    ],
    repeat: 400,
    zero: [200, 200, 'zero'],
  });
});

test('GET /: every hypermedia link answers 200', async () => {
  const { mb, svc } = await onBoth(async ({ api }) => {
    const home = await api.get('/');
    const statuses: Record<string, number> = {};
    for (const [name, link] of Object.entries(home.body._links as Record<string, { href: string }>)) {
      statuses[name] = (await api.get(link.href)).status;
    }
    return { status: home.status, links: home.body._links, statuses };
  });
  assertContained(mb, svc, 'home');
  assert.equal(svc.statuses, { imposters: 200, config: 200, logs: 200 });
});

// ---------------------------------------------------------------- httpStubTest

const GZIP_BASE64 =
  'H4sIAAAAAAAEAO29B2AcSZYlJi9tynt/SvVK1+B0oQiAYBMk2JBAEOzBiM3mkuwdaUcjKasqgcplVmVdZhZAzO2dvPfee++999577733ujudTif33/8/XGZkAWz2zkrayZ4hgKrIHz9+fB8/In7xR8Xso0cfzab3p/vn053t/NPZbHt/cn5/++D+5N72pwefTnd2JtP8/CD7aPRR02btuqH2zXo6zZuGPpplbfbRo1/80arMlviZXWZFmU2Ksmiv8XdbLPIfVMucXsqb9vfPZy29VC3LAh/94o8WFb91XlcLarFz/9HODn3fVvTH3h7++CX015qbbmxzldMwbmjTztc3tjmvixvbNFnrt3mIj02bXfyBNutgXJE2v4RagWi//zRftnVWonlZXVALmpNFdpH//uuaPvxo3rar5tHdu9NFsz3LL8fL7JJIOivejafV4m5z3bT54u55UebN3d27/GIzXi0vqDei8VsPCMEI3gWadd5U65qm8qNH3/vFHy2zBVH6o5d1dVnM8jp9WtT5tK3qawLWg7PM2zH9n6C4F+dZvcim1+//YlUW0yJv0l+YUufTfLYmxG757vG6nVd18YOsLapl+rxowGC3efFZVS/WZXZ7JA1ZXuXneZ0vpzmh+0oJmH6+pu9ui/MJTU0xzUqM9qLOFrd9z9I1rc7Tb+dZ2c4BgtFq0mKZvsiv0t+nqt9uhPd9YnMa+8Cc5wugtJoX0/RsiXZC2Ff5L1qTAKeg2kboDtuTqqpnxVLeJ4Sf5Mv8vGib94JRZsXivd54WefbJ3ndFudEYe76xpeJINNqdV0XF3OSbPd72rR1sbxIdyGtv+T/AdOWKsArBQAA';
const PNG_MULTILINE_BASE64 = [
  'iVBORw0KGgoAAAANSUhEUgAAAGQAAAAyBAMAAABYG2ONAAAAFVBMVEUAAAD///9/f39fX1+fn58f',
  'Hx8/Pz8rYiDqAAAACXBIWXMAAA7EAAAOxAGVKw4bAAAAo0lEQVRIie2Qyw7CIBBFb2DwO5q+1o0L',
  '1w0NrrHRPQnV//8EAUl0ga1ujIs5CZAz4YYZAIZhmN/QQOkjzq3LLuv6xUrQHmTJGphcEGE9rUQ3',
  'Y4bqqrDjAlgQoJK9Z8YBmFy8Gp8DeSeTfRSBCf2I6/JN5ORiRfrNiIfqh9S9SVPL27A1C0G4EX2e',
  'JR7J1iI7rbG0Vf4x0UwPW0Uh3i0bwzD/yR11mBj1DIKiVwAAAABJRU5ErkJggg==',
  '',
].join('\n');

interface StubCase {
  name: string;
  stubs: object[];
  defaultResponse?: object;
  /** What a client observes; compared across servers and against `expected`. */
  observe(client: MbClient, port: number): Promise<unknown>;
  expected: unknown;
}

const COMPLEX_PREDICATES = [
  { equals: { path: '/test', method: 'POST' } },
  { equals: { query: { key: 'value' } } },
  { exists: { headers: { 'X-One': true } } },
  { exists: { headers: { 'X-Two': true } } },
  { equals: { headers: { 'X-Two': 'Test' } } },
  { exists: { headers: { 'X-Three': false } } },
  { not: { exists: { headers: { 'X-Four': true } } } },
  { startsWith: { body: 'T' } },
  { contains: { body: 'ES' } },
  { endsWith: { body: 'T' } },
  { matches: { body: '^TEST$' } },
  { equals: { body: 'TEST' } },
  { exists: { body: true } },
];
const JSON_BODY_PREDICATES = [
  { equals: { body: { key: 'value' } } },
  { equals: { body: { arr: 3 } } },
  { deepEquals: { body: { key: 'value', arr: [2, 1, 3] } } },
  { matches: { body: { key: '^v' } } },
];
const bodies = async (client: MbClient, port: number, paths: string[]) => {
  const out: unknown[] = [];
  for (const path of paths) out.push((await client.get(path, port)).body);
  return out;
};
const postBody = async (client: MbClient, port: number, body: unknown, headers?: Record<string, string>) =>
  (await client.request({ method: 'POST', path: '/', port, body, ...(headers ? { headers } : {}) })).body;

const STUB_CASES: StubCase[] = [
  {
    name: 'canned status, header and body (unknown `query` field in is ignored)',
    stubs: [{ responses: [{ is: { statusCode: 400, headers: { 'X-Test': 'test header' }, body: 'test body', query: { key: true } } }] }],
    observe: async (client, port) => {
      const res = await client.get('/test?key=true', port);
      return [res.status, res.body, res.headers['x-test']];
    },
    expected: [400, 'test body', 'test header'],
  },
  {
    name: 'responses cycle as a circular buffer',
    stubs: [{ responses: [{ is: { statusCode: 400 } }, { is: { statusCode: 405 } }] }],
    observe: async (client, port) => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await client.get('/test', port)).status);
      return statuses;
    },
    expected: [400, 405, 400, 405],
  },
  {
    name: 'complex predicate: every clause must hold',
    stubs: [{ responses: [{ is: { statusCode: 400 } }], predicates: COMPLEX_PREDICATES }],
    observe: async (client, port) => {
      const headers = { 'X-One': 'Test', 'X-Two': 'Test', 'Content-Type': 'text/plain' };
      const send = (overrides: { path?: string; method?: string; headers?: Record<string, string>; body: string }) =>
        client.request({
          method: overrides.method ?? 'POST',
          port,
          path: overrides.path ?? '/test?key=value&next=true',
          headers: overrides.headers ?? headers,
          body: overrides.body,
        });
      const { 'X-One': _dropped, ...withoutOne } = headers;
      const statuses: number[] = [];
      for (const spec of [
        { path: '/', body: 'TEST' },
        { path: '/test?key=different', body: 'TEST' },
        { method: 'PUT', body: 'TEST' },
        { headers: withoutOne, body: 'TEST' },
        { headers: { ...headers, 'X-Two': 'Testing' }, body: 'TEST' },
        { body: 'TESTing' },
        { body: 'TEST' },
      ])
        statuses.push((await send(spec)).status);
      return statuses;
    },
    expected: [200, 200, 200, 200, 200, 200, 400],
  },
  {
    name: 'deepEquals on query objects, predicate keywords as keys',
    stubs: [
      { responses: [{ is: { body: 'first stub' } }], predicates: [{ deepEquals: { query: {} } }] },
      { responses: [{ is: { body: 'second stub' } }], predicates: [{ deepEquals: { query: { equals: 1 } } }] },
      { responses: [{ is: { body: 'third stub' } }], predicates: [{ deepEquals: { query: { equals: 'true', contains: false } } }] },
    ],
    observe: (client, port) =>
      bodies(client, port, ['/', '/?equals=something', '/?equals=1', '/?contains=false&equals=true', '/?contains=false&equals=true&matches=yes']),
    expected: ['first stub', '', 'second stub', 'third stub', ''],
  },
  {
    name: 'binary response body',
    stubs: [{ responses: [{ is: { body: Buffer.from([0, 1, 2, 3]).toString('base64'), _mode: 'binary' } }] }],
    observe: async (client, port) => [...((await client.request({ method: 'GET', port, path: '/', binary: true })).body as Buffer)],
    expected: [0, 1, 2, 3],
  },
  {
    name: 'JSON bodies, cycled',
    stubs: [{ responses: [{ is: { body: { key: 'value', sub: { 'string-key': 'value' }, arr: [1, 2] } } }, { is: { body: { key: 'second request' } } }] }],
    observe: async (client, port) => (await bodies(client, port, ['/', '/'])).map((b) => JSON.parse(b as string)),
    expected: [{ key: 'value', sub: { 'string-key': 'value' }, arr: [1, 2] }, { key: 'second request' }],
  },
  {
    name: 'request body treated as JSON by predicates',
    stubs: [{ responses: [{ is: { body: 'SUCCESS' } }], predicates: JSON_BODY_PREDICATES }],
    observe: (client, port) => postBody(client, port, '{"key": "value", "arr": [3,2,1]}'),
    expected: 'SUCCESS',
  },
  {
    name: 'defaultResponse fills the fields a stub response leaves out, and answers unmatched requests',
    stubs: [{ responses: [{ is: { body: 'Wrong address' } }, { is: { statusCode: 500 } }], predicates: [{ equals: { path: '/' } }] }],
    defaultResponse: { statusCode: 404, body: 'Not found' },
    observe: async (client, port) => {
      const out: unknown[] = [];
      for (const path of ['/', '/', '/differentStub']) {
        const res = await client.get(path, port);
        out.push([res.status, res.body]);
      }
      return out;
    },
    expected: [
      [404, 'Wrong address'],
      [500, 'Not found'],
      [404, 'Not found'],
    ],
  },
  {
    name: 'defaultResponse header with an uppercase name (keep-alive)',
    stubs: [{ responses: [{ is: { body: 'Success' } }] }],
    defaultResponse: { headers: { CONNECTION: 'Keep-Alive' } },
    observe: async (client, port) => {
      const res = await client.get('/', port);
      return [res.body, res.headers.connection];
    },
    expected: ['Success', 'Keep-Alive'],
  },
  {
    name: 'several values of one header',
    stubs: [{ responses: [{ is: { headers: { 'Set-Cookie': ['first', 'second'] } } }] }],
    observe: async (client, port) => (await client.get('/', port)).headers['set-cookie'],
    expected: ['first', 'second'],
  },
  {
    name: 'JSON body with a _links field',
    stubs: [{ responses: [{ is: { headers: { 'Content-Type': 'application/json' }, body: { _links: { self: { href: '/products/123' } } } } }] }],
    observe: async (client, port) => (await client.get('/', port)).body,
    expected: { _links: { self: { href: '/products/123' } } },
  },
  {
    name: 'Content-Length header as given for binary bodies (single and multi-line base64)',
    stubs: [
      { predicates: [{ equals: { path: '/gzip' } }], responses: [{ is: { headers: { 'Content-Length': 852 }, body: GZIP_BASE64, _mode: 'binary' } }] },
      { predicates: [{ equals: { path: '/png' } }], responses: [{ is: { headers: { 'Content-Length': 274 }, body: PNG_MULTILINE_BASE64, _mode: 'binary' } }] },
    ],
    observe: async (client, port) => [(await client.get('/gzip', port)).headers['content-length'], (await client.get('/png', port)).headers['content-length']],
    expected: ['639', '274'],
  },
  {
    name: 'JSON null values in responses',
    stubs: [{ responses: [{ is: { body: { name: 'test', type: null } } }] }],
    observe: async (client, port) => JSON.parse((await client.get('/', port)).body),
    expected: { name: 'test', type: null },
  },
  {
    name: 'null in deepEquals and equals body predicates',
    stubs: [
      { predicates: [{ deepEquals: { body: { field: null } } }], responses: [{ is: { body: 'deepEquals' } }] },
      { predicates: [{ equals: { body: { version: null } } }], responses: [{ is: { body: 'equals' } }] },
    ],
    observe: async (client, port) => [await postBody(client, port, { field: null }), await postBody(client, port, { version: null })],
    expected: ['deepEquals', 'equals'],
  },
  {
    name: 'array predicate with xpath',
    stubs: [{ responses: [{ is: { body: 'SUCCESS' } }], predicates: [{ equals: { body: ['first', 'third', 'second'] }, xpath: { selector: '//value' } }] }],
    observe: (client, port) => postBody(client, port, '<values><value>first</value><value>second</value><value>third</value></values>'),
    expected: 'SUCCESS',
  },
  {
    name: 'matches on an uppercase JSON key',
    stubs: [{ predicates: [{ matches: { body: { Key: '^Value' } } }], responses: [{ is: { body: 'SUCCESS' } }] }],
    observe: (client, port) => postBody(client, port, { Key: 'Value' }),
    expected: 'SUCCESS',
  },
  {
    name: 'form predicate',
    stubs: [{ predicates: [{ deepEquals: { form: { firstname: 'ruud', lastname: 'mountebank' } } }], responses: [{ is: { body: 'SUCCESS' } }] }],
    observe: (client, port) => postBody(client, port, 'firstname=ruud&lastname=mountebank', { 'Content-Type': 'application/x-www-form-urlencoded' }),
    expected: 'SUCCESS',
  },
  {
    name: 'predicates on a gzipped request body',
    stubs: [{ responses: [{ is: { body: 'SUCCESS' } }], predicates: JSON_BODY_PREDICATES }],
    observe: async (client, port) => {
      const res = await client.request({
        method: 'POST',
        port,
        path: '/',
        headers: { 'Content-Encoding': 'gzip' },
        binary: true,
        body: gzipSync('{"key": "value", "arr": [3,2,1]}'),
      });
      return (res.body as Buffer).toString();
    },
    expected: 'SUCCESS',
  },
  {
    name: 'cyrillic JSON keys',
    stubs: [{ predicates: [{ deepEquals: { body: { тест: '2' } } }], responses: [{ is: { body: 'Matched' } }] }],
    observe: (client, port) => postBody(client, port, '{ "тест": "2" }'),
    expected: 'Matched',
  },
];

for (const protocol of PROTOCOLS) {
  test(`${protocol}: canned stubs and predicates as mountebank's stub tests use them`, async () => {
    const { mb, svc } = await onBoth(async ({ api, ports, ...ctx }) => {
      const out: Record<string, unknown> = {};
      for (const c of STUB_CASES) {
        const created = await api.post('/imposters', {
          protocol,
          port: ports[0],
          stubs: c.stubs,
          ...(c.defaultResponse ? { defaultResponse: c.defaultResponse } : {}),
        });
        out[c.name] = created.status === 201 ? await c.observe(ctx[protocol], ports[0]) : `create failed ${created.status}: ${JSON.stringify(created.body)}`;
        await api.del(`/imposters/${ports[0]}`);
      }
      return out;
    });
    for (const c of STUB_CASES) {
      assert.equal(mb[c.name], c.expected, `mountebank: ${c.name}`);
      assert.equal(svc[c.name], c.expected, `${ready().svc.name}: ${c.name}`);
    }
  });

  test(`${protocol}: stubs changed without restarting the imposter (replace all, replace one, delete, insert, append)`, async () => {
    const first = { responses: [{ is: { body: 'first' } }], predicates: [{ equals: { path: '/first' } }] };
    const { mb, svc } = await onBoth(async ({ api, ports, ...ctx }) => {
      const client = ctx[protocol];
      const out: Record<string, unknown> = {};
      const step = async (name: string, setup: object[], change: () => Promise<{ status: number; body: any }>) => {
        await api.post('/imposters', { protocol, port: ports[0], stubs: setup });
        const res = await change();
        out[name] = { status: res.status, stubs: res.body.stubs, served: (await client.get('/', ports[0])).body };
        await api.del(`/imposters/${ports[0]}`);
      };
      const three = [first, { responses: [{ is: { body: 'SECOND' } }] }, { responses: [{ is: { body: 'third' } }] }];
      const two = [first, { responses: [{ is: { body: 'third' } }] }];
      await step('replace all', [{ responses: [{ is: { body: 'ORIGINAL' } }] }], () =>
        api.put(`/imposters/${ports[0]}/stubs`, {
          stubs: [{ responses: [{ is: { body: 'FIRST' } }] }, { responses: [{ is: { body: 'ORIGINAL' } }] }, { responses: [{ is: { body: 'THIRD' } }] }],
        }),
      );
      await step('replace one', three, () => api.put(`/imposters/${ports[0]}/stubs/1`, { responses: [{ is: { body: 'CHANGED' } }] }));
      await step('delete one', three, () => api.del(`/imposters/${ports[0]}/stubs/1`));
      await step('insert at index', two, () => api.post(`/imposters/${ports[0]}/stubs`, { index: 1, stub: { responses: [{ is: { body: 'SECOND' } }] } }));
      await step('append', two, () => api.post(`/imposters/${ports[0]}/stubs`, { stub: { responses: [{ is: { body: 'LAST' } }] } }));
      return out;
    });
    assertContained(mb, svc, 'stub changes');
    const view = (name: string) => {
      const s = svc[name] as {
        status: number;
        stubs: Array<{ responses: Array<{ is: { body: string } }>; _links: { self: { href: string } } }>;
        served: string;
      };
      return [s.status, s.stubs.map((stub) => `${stub.responses[0]!.is.body}@${stub._links.self.href.split('/').pop()}`), s.served];
    };
    assert.equal(view('replace all'), [200, ['FIRST@0', 'ORIGINAL@1', 'THIRD@2'], 'FIRST']);
    assert.equal(view('replace one'), [200, ['first@0', 'CHANGED@1', 'third@2'], 'CHANGED']);
    assert.equal(view('delete one'), [200, ['first@0', 'third@1'], 'third']);
    assert.equal(view('insert at index'), [200, ['first@0', 'SECOND@1', 'third@2'], 'SECOND']);
    assert.equal(view('append'), [200, ['first@0', 'third@1', 'LAST@2'], 'third']);
  });
}

test.run();

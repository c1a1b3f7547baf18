/**
 * `svc --compat mountebank` vs mountebank 2.9.1: every admin answer compared here must be the same
 * JSON exactly (after normalisation of ports, hosts and per-run values, test/support/mountebank/pair.ts), not
 * merely contained in svc's: no `_svc`, `stubCount`, `enabled`, generated stub ids, error `type`,
 * nor recorded-request extensions.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { http, type HttpResponse } from '../support/servers.js';
import { assertSameAnswers, createOnBoth, normalizeAdmin, pairForSuite, postJson, send, type SideImposters } from '../support/mountebank/pair.js';

const test = suite('differential: --compat mountebank admin plane');
const ready = pairForSuite(test, [], ['--compat', 'mountebank']);

const recorded = {
  protocol: 'http',
  name: 'recorded',
  recordRequests: true,
  defaultResponse: { statusCode: 404, body: 'none' },
  stubs: [
    { predicates: [{ equals: { path: '/a' } }], responses: [{ is: { statusCode: 201, headers: { 'X-A': ['1', '2'] }, body: { ok: true } } }] },
    { responses: [{ is: { body: 'A' } }, { is: { body: 'B' }, repeat: 2 }] },
  ],
};
const plain = { protocol: 'http', stubs: [{ responses: [{ is: { body: 'plain' } }] }] };

type Sides = [SideImposters, SideImposters] | null;

function parse(res: HttpResponse, label: string): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    throw new Error(`${label}: body is not JSON (${res.status}): ${res.body.slice(0, 300)}`);
  }
}

/** The same admin call on both sides; `{port}` / `{port1}` become that side's imposter ports. */
async function both(sides: Sides, method: string, path: string, body?: { value: unknown } | { raw: string }): Promise<[HttpResponse, HttpResponse]> {
  const p = ready();
  const call = (admin: string, ports: number[]) => {
    const url = `${admin}${path.replace('{port}', String(ports[0])).replace('{port1}', String(ports[1]))}`;
    if (body === undefined) return http(method, url);
    if ('raw' in body) return http(method, url, { headers: { 'content-type': 'application/json' }, body: body.raw });
    return postJson(url, body.value, method);
  };
  return [await call(p.mb.admin, sides?.[0].ports ?? []), await call(p.svc.admin, sides?.[1].ports ?? [])];
}

/**
 * Per-run values beyond pair.ts's: a proxy recording's `Date` header and `_proxyResponseTime`, and
 * the default https `key`/`cert` (each product ships its own pair; both keys must be present).
 */
const perRun = new Set(['Date', '_proxyResponseTime', 'key', 'cert']);

function masked(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(masked);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, perRun.has(k) ? '<per-run>' : masked(v)]));
}

/** Same status and the same normalised JSON, key for key. */
function assertExactJson([mb, svc]: [HttpResponse, HttpResponse], sides: Sides, label: string): unknown {
  const p = ready();
  assert.is(svc.status, mb.status, `${label}: status (svc answered ${svc.body.slice(0, 300)})`);
  const expected = masked(normalizeAdmin(parse(mb, `${label} (mountebank)`), p.mb, sides?.[0].ports ?? []));
  const actual = masked(normalizeAdmin(parse(svc, `${label} (svc)`), p.svc, sides?.[1].ports ?? []));
  assert.equal(actual, expected, `${label}: svc's JSON differs from mountebank's`);
  return expected;
}

test('POST /imposters: the created imposter, http and https', async () => {
  const https = { protocol: 'https', stubs: [{ responses: [{ is: { body: 'tls' } }] }] };
  const sides = await createOnBoth(ready(), recorded, https);
  for (const i of [0, 1]) assertExactJson([sides[0].created[i]!, sides[1].created[i]!], sides, `create #${i}`);
});

test('GET /imposters in every form, and GET /imposters/:port after traffic', async () => {
  const sides = await createOnBoth(ready(), recorded, plain);
  for (const side of sides) {
    await send(side, 'GET', '/a');
    await send(side, 'POST', '/b?x=1&x=2', { headers: { 'content-type': 'application/json' }, body: '{"k":"v"}' });
    await send(side, 'POST', '/form', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=2' });
    await send(side, 'PUT', '/bin', { body: Buffer.from([0x61, 0xff, 0x00]) });
  }
  for (const query of ['', '?list=true', '?replayable=true', '?removeProxies=true', '?replayable=true&removeProxies=true']) {
    assertExactJson(await both(sides, 'GET', `/imposters${query}`), sides, `GET /imposters${query}`);
  }
  const detail = assertExactJson(await both(sides, 'GET', '/imposters/{port}'), sides, 'GET /imposters/:port') as { requests: Array<{ body: unknown }> };
  assert.is(detail.requests.length, 4);
  assert.is(detail.requests[0]!.body, '', 'mountebank records an empty body');
  assertExactJson(await both(sides, 'GET', '/imposters/{port}?replayable=true'), sides, 'GET /imposters/:port?replayable=true');
});

test('errors: no type, and the same codes and messages', async () => {
  const sides = await createOnBoth(ready(), plain);
  assertExactJson(await both(null, 'POST', '/imposters', { raw: '{"protocol": "http",' }), null, 'invalid JSON');
  const invalid: Array<[string, object]> = [
    ['missing protocol', { stubs: [] }],
    ['empty responses', { protocol: 'http', stubs: [{ responses: [] }] }],
    ['unsupported protocol', { protocol: 'gopher' }],
  ];
  for (const [label, imposter] of invalid) assertExactJson(await both(null, 'POST', '/imposters', { value: imposter }), null, label);
  const outOfRange = { value: { index: 9, stub: { responses: [{ is: {} }] } } };
  assertExactJson(await both(sides, 'POST', '/imposters/{port}/stubs', outOfRange), sides, 'insert out of range');
  assertExactJson(await both(sides, 'PUT', '/imposters/{port}/stubs/9', { value: { responses: [{ is: {} }] } }), sides, 'replace out of range');
});

test("a missing imposter: DELETE answers 200 {}, every other route mountebank's 404", async () => {
  const answer = assertExactJson(await both(null, 'DELETE', '/imposters/1'), null, 'DELETE missing imposter');
  assert.equal(answer, {});
  const routes: Array<[string, string]> = [
    ['GET', '/imposters/1'],
    ['PUT', '/imposters/1/stubs'],
    ['POST', '/imposters/1/stubs'],
    ['PUT', '/imposters/1/stubs/0'],
    ['DELETE', '/imposters/1/stubs/0'],
    ['DELETE', '/imposters/1/savedRequests'],
    ['DELETE', '/imposters/1/savedProxyResponses'],
  ];
  for (const [method, path] of routes) {
    const body = method === 'GET' || method === 'DELETE' ? undefined : { value: { stubs: [], stub: { responses: [{ is: {} }] }, responses: [{ is: {} }] } };
    assertExactJson(await both(null, method, path, body), null, `${method} ${path}`);
  }
});

test('stubs: add, insert, replace one, replace all, delete keep mountebank JSON (no generated ids)', async () => {
  const sides = await createOnBoth(ready(), plain);
  const steps: Array<[string, string, string, { value: unknown } | undefined]> = [
    ['append', 'POST', '/imposters/{port}/stubs', { value: { stub: { predicates: [{ equals: { path: '/two' } }], responses: [{ is: { body: 'two' } }] } } }],
    ['insert at 0', 'POST', '/imposters/{port}/stubs', { value: { index: 0, stub: { responses: [{ is: { body: 'zero' } }] } } }],
    ['replace index 1', 'PUT', '/imposters/{port}/stubs/1', { value: { predicates: [{ equals: { path: '/one' } }], responses: [{ is: { body: 'one' } }] } }],
    ['delete index 0', 'DELETE', '/imposters/{port}/stubs/0', undefined],
    ['replace all', 'PUT', '/imposters/{port}/stubs', { value: { stubs: [{ responses: [{ is: { body: 'all' } }] }] } }],
  ];
  for (const [label, method, path, body] of steps) assertExactJson(await both(sides, method, path, body), sides, label);
});

test('PUT /imposters, DELETE /imposters/:port (with its requests) and DELETE /imposters', async () => {
  const sides = await createOnBoth(ready(), recorded, plain);
  // Each side puts its own ports in.
  const perSide = async (side: SideImposters) =>
    postJson(
      `${side.side.admin}/imposters`,
      {
        imposters: [
          { ...recorded, port: side.ports[0] },
          { ...plain, port: side.ports[1] },
        ],
      },
      'PUT',
    );
  assertExactJson([await perSide(sides[0]), await perSide(sides[1])], sides, 'PUT /imposters');
  for (const side of sides) await send(side, 'GET', '/a');
  assertExactJson(await both(sides, 'DELETE', '/imposters/{port}'), sides, 'DELETE /imposters/:port');
  assertExactJson(await both(sides, 'DELETE', '/imposters'), sides, 'DELETE /imposters');
});

test('DELETE /imposters/:port/requests clears saved proxy responses; savedRequests clears requests', async () => {
  const p = ready();
  const [originMb, originSvc] = await createOnBoth(p, { protocol: 'http', stubs: [{ responses: [{ is: { body: 'origin' } }] }] });
  const proxy = (origin: SideImposters) => ({
    protocol: 'http',
    recordRequests: true,
    stubs: [{ responses: [{ proxy: { to: `http://127.0.0.1:${origin.ports[0]}`, mode: 'proxyOnce' } }] }],
  });
  const sides: [SideImposters, SideImposters] = [
    { ...originMb, ports: [originMb.ports[0]!, 0] },
    { ...originSvc, ports: [originSvc.ports[0]!, 0] },
  ];
  for (const [i, side] of sides.entries()) {
    const created = await postJson(`${side.side.admin}/imposters`, proxy([originMb, originSvc][i]!));
    assert.is(created.status, 201, `${side.side.name} proxy imposter: ${created.body}`);
    side.ports[1] = (JSON.parse(created.body) as { port: number }).port;
    assert.is((await http('GET', `http://127.0.0.1:${side.ports[1]}/p`)).body, 'origin');
  }
  // The proxy imposter is the second port: compare its detail after each reset.
  const onProxy = (method: string, suffix: string) => both(sides, method, `/imposters/{port1}${suffix}`);
  const recordedStubs = assertExactJson(await onProxy('GET', ''), sides, 'proxy imposter after a proxied request') as { stubs: unknown[] };
  assert.is(recordedStubs.stubs.length, 2, 'proxyOnce recorded a stub');
  const cleared = assertExactJson(await onProxy('DELETE', '/requests'), sides, 'DELETE /requests') as { stubs: unknown[]; requests: unknown[] };
  assert.is(cleared.stubs.length, 1, 'the recorded stub is gone');
  assert.is(cleared.requests.length, 1, 'recorded requests stay');
  const reset = assertExactJson(await onProxy('DELETE', '/savedRequests'), sides, 'DELETE /savedRequests') as { requests: unknown[] };
  assert.is(reset.requests.length, 0);
});

test('an unknown fault is ignored: the default response, as mountebank answers', async () => {
  await assertSameAnswers(ready(), { protocol: 'http', stubs: [{ responses: [{ fault: 'NO_SUCH_FAULT' }] }] }, [{ expect: '' }]);
});

test('extensions stay available: an explicit stub id is kept and addressable', async () => {
  const p = ready();
  const port = (await createOnBoth(p, { protocol: 'http', stubs: [{ id: 'mine', responses: [{ is: { body: 'x' } }] }] }))[1].ports[0];
  const stub = await http('GET', `${p.svc.admin}/imposters/${port}/stubs/by-id/mine`);
  assert.is(stub.status, 200);
  assert.is((JSON.parse(stub.body) as { id: string }).id, 'mine');
});

test.run();

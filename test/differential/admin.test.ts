/**
 * Admin plane, svc vs mountebank 2.9.1: the JSON shapes of imposter and stub routes and the error
 * statuses/codes a mountebank client branches on. Admin JSON is compared by containment after
 * normalisation (test/support/mountebank/pair.ts): svc may add SPEC extensions, never drop or change a field.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { http, type HttpResponse } from '../support/servers.js';
import {
  createOnBoth,
  missingFrom,
  normalizeAdmin,
  pairForSuite,
  postJson,
  send,
  svcCompat,
  svcIsMountebank,
  type SideImposters,
} from '../support/mountebank/pair.js';

const test = suite('differential: admin plane');
const ready = pairForSuite(test);

const recorded = {
  protocol: 'http',
  name: 'recorded',
  recordRequests: true,
  stubs: [
    { predicates: [{ equals: { path: '/a' } }], responses: [{ is: { statusCode: 201, headers: { 'X-A': ['1', '2'] }, body: { ok: true } } }] },
    { responses: [{ is: { body: 'A' } }, { is: { body: 'B' }, repeat: 2 }] },
  ],
};
const plain = { protocol: 'http', stubs: [{ responses: [{ is: { body: 'plain' } }] }] };

type Body = { value: unknown } | undefined;

/** The same admin call on both sides; `{port}` in the path becomes that side's first imposter port. */
async function both(sides: [SideImposters, SideImposters] | null, method: string, path: string, body?: Body): Promise<[HttpResponse, HttpResponse]> {
  const p = ready();
  const call = (admin: string, port: number | undefined) => {
    const url = `${admin}${path.replace('{port}', String(port))}`;
    return body ? postJson(url, body.value, method) : http(method, url);
  };
  return [await call(p.mb.admin, sides?.[0].ports[0]), await call(p.svc.admin, sides?.[1].ports[0])];
}

function parse(res: HttpResponse, label: string): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    throw new Error(`${label}: body is not JSON (${res.status}): ${res.body.slice(0, 300)}`);
  }
}

type Json = Record<string, unknown>;

/**
 * Same status, and mountebank's normalised JSON contained in svc's. `specified` rewrites
 * mountebank's JSON where SPEC deliberately departs from it (each use cites the section); it is
 * skipped when both sides are mountebank.
 */
function assertSameJson(
  [mb, svc]: [HttpResponse, HttpResponse],
  sides: [SideImposters, SideImposters] | null,
  label: string,
  specified?: (expected: Json) => void,
): void {
  const p = ready();
  assert.is(svc.status, mb.status, `${label}: status`);
  const expected = normalizeAdmin(parse(mb, `${label} (mountebank)`), p.mb, sides?.[0].ports ?? []) as Json;
  if (!svcIsMountebank && !svcCompat) specified?.(expected);
  const actual = normalizeAdmin(parse(svc, `${label} (${p.svc.name})`), p.svc, sides?.[1].ports ?? []);
  assert.equal(missingFrom(expected, actual), [], `${label}: mountebank's JSON is not contained in ${p.svc.name}'s`);
}

/** Same status and same `errors[0].code` (messages are free text). */
function assertSameError([mb, svc]: [HttpResponse, HttpResponse], expectedStatus: number, label: string): void {
  assert.is(mb.status, expectedStatus, `${label}: mountebank status`);
  assert.is(svc.status, mb.status, `${label}: status`);
  const code = (res: HttpResponse, who: string) => (parse(res, `${label} (${who})`) as { errors?: Array<{ code?: unknown }> }).errors?.[0]?.code;
  assert.is(code(svc, 'svc'), code(mb, 'mountebank'), `${label}: errors[0].code`);
}

test('POST /imposters: 201, Location and the created imposter', async () => {
  const p = ready();
  const sides = await createOnBoth(p, recorded);
  const [mb, svc] = sides.map((s) => s.created[0]!) as [HttpResponse, HttpResponse];
  assertSameJson([mb, svc], sides, 'create');
  const location = (res: HttpResponse, side: SideImposters) => normalizeAdmin(res.headers.location, side.side, side.ports);
  assert.is(location(svc, sides[1]), location(mb, sides[0]));
  assert.is(location(mb, sides[0]), 'http://ADMIN/imposters/PORT0');
});

test('GET /imposters: summary, replayable and list forms', async () => {
  const sides = await createOnBoth(ready(), recorded, plain);
  for (const query of ['', '?replayable=true', '?list=true']) {
    const pairRes = await both(sides, 'GET', `/imposters${query}`);
    assertSameJson(pairRes, sides, `GET /imposters${query}`);
    assert.is((parse(pairRes[0], 'mountebank') as { imposters: unknown[] }).imposters.length, 2);
  }
});

test('GET /imposters/:port after traffic: recorded requests, counts, replayable', async () => {
  const sides = await createOnBoth(ready(), recorded);
  const binary = Buffer.from([0xff, 0x00, 0xfe]);
  for (const side of sides) {
    await send(side, 'POST', '/a?x=1&x=2', { headers: { 'x-custom': 'v', 'content-type': 'application/json' }, body: '{"k":"v"}' });
    await send(side, 'GET', '/b', { headers: { 'x-multi': ['1', '2'] } });
    await send(side, 'PUT', '/b', { body: binary });
  }
  const detail = await both(sides, 'GET', '/imposters/{port}');
  // docs/recording-and-verify.md: `body` only when the request had one (mountebank records ''), and a non-UTF-8 body
  // as base64 with `_mode: binary` (mountebank records a lossy UTF-8 decoding).
  assertSameJson(detail, sides, 'GET /imposters/:port', (expected) => {
    const requests = expected.requests as Json[];
    delete requests[1]!.body;
    Object.assign(requests[2]!, { body: binary.toString('base64'), _mode: 'binary' });
  });
  assert.is((parse(detail[0], 'mountebank') as { numberOfRequests: number }).numberOfRequests, 3);
  assertSameJson(await both(sides, 'GET', '/imposters/{port}?replayable=true'), sides, 'GET /imposters/:port?replayable=true');
});

test('POST /imposters errors: invalid JSON, bad predicate, empty responses, bad protocol', async () => {
  const p = ready();
  const raw = (admin: string) => http('POST', `${admin}/imposters`, { headers: { 'content-type': 'application/json' }, body: '{"protocol": "http",' });
  assertSameError([await raw(p.mb.admin), await raw(p.svc.admin)], 400, 'invalid JSON');
  const invalid: Array<[string, object]> = [
    ['unknown predicate operator', { protocol: 'http', stubs: [{ predicates: [{ equalz: { path: '/' } }], responses: [{ is: {} }] }] }],
    ['empty responses', { protocol: 'http', stubs: [{ responses: [] }] }],
    ['unsupported protocol', { protocol: 'gopher' }],
  ];
  for (const [label, imposter] of invalid) {
    assertSameError(await both(null, 'POST', '/imposters', { value: imposter }), 400, label);
  }
});

test('POST /imposters on a port already in use: 400', async () => {
  const sides = await createOnBoth(ready(), plain);
  // Status only: mountebank's code here is the raw errno name (EADDRINUSE), not a documented code.
  const again = (side: SideImposters) => postJson(`${side.side.admin}/imposters`, { ...plain, port: side.ports[0] });
  const [mbRes, svcRes] = [await again(sides[0]), await again(sides[1])];
  assert.is(mbRes.status, 400);
  assert.is(svcRes.status, mbRes.status);
});

test('unknown imposter: GET 404; DELETE 404 (docs/imposters.md, where mountebank answers 200 {})', async () => {
  assertSameError(await both(null, 'GET', '/imposters/1'), 404, 'GET unknown imposter');
  const [mb, svc] = await both(null, 'DELETE', '/imposters/1');
  assert.is(mb.status, 200, 'mountebank DELETE unknown');
  assert.is(svc.status, svcIsMountebank || svcCompat ? 200 : 404, `${ready().svc.name} DELETE unknown`);
});

test('stubs: add, insert at index, replace one, replace all, delete, out-of-range', async () => {
  const sides = await createOnBoth(ready(), plain);
  const steps: Array<[string, string, string, Body]> = [
    ['append', 'POST', '/imposters/{port}/stubs', { value: { stub: { predicates: [{ equals: { path: '/two' } }], responses: [{ is: { body: 'two' } }] } } }],
    [
      'insert at 0',
      'POST',
      '/imposters/{port}/stubs',
      { value: { index: 0, stub: { predicates: [{ equals: { path: '/zero' } }], responses: [{ is: { body: 'zero' } }] } } },
    ],
    ['replace index 1', 'PUT', '/imposters/{port}/stubs/1', { value: { predicates: [{ equals: { path: '/one' } }], responses: [{ is: { body: 'one' } }] } }],
    ['delete index 0', 'DELETE', '/imposters/{port}/stubs/0', undefined],
  ];
  for (const [label, method, path, body] of steps) assertSameJson(await both(sides, method, path, body), sides, label);
  // After the steps the stubs are [/one, /two]: the imposter must serve them in that order.
  for (const side of sides) {
    assert.is((await send(side, 'GET', '/one')).body, 'one', `${side.side.name} /one`);
    assert.is((await send(side, 'GET', '/two')).body, 'two', `${side.side.name} /two`);
    assert.is((await send(side, 'GET', '/zero')).body, '', `${side.side.name} /zero`);
  }
  assertSameJson(await both(sides, 'PUT', '/imposters/{port}/stubs', { value: { stubs: [{ responses: [{ is: { body: 'all' } }] }] } }), sides, 'replace all');
  assertSameError(await both(sides, 'POST', '/imposters/{port}/stubs', { value: { index: 9, stub: { responses: [{ is: {} }] } } }), 400, 'insert out of range');
  assertSameError(await both(sides, 'PUT', '/imposters/{port}/stubs/9', { value: { responses: [{ is: {} }] } }), 404, 'replace out of range');
  assertSameError(await both(sides, 'DELETE', '/imposters/{port}/stubs/9'), 404, 'delete out of range');
});

test('DELETE /imposters/:port and DELETE /imposters return what was deleted', async () => {
  const sides = await createOnBoth(ready(), recorded, plain);
  for (const side of sides) await send(side, 'GET', '/a');
  // docs/imposters.md: the deleted-imposter snapshot has numberOfRequests 0 and no requests.
  assertSameJson(await both(sides, 'DELETE', '/imposters/{port}'), sides, 'DELETE /imposters/:port', (expected) => {
    Object.assign(expected, { numberOfRequests: 0, requests: [] });
  });
  const rest = await both(sides, 'DELETE', '/imposters');
  assertSameJson(rest, sides, 'DELETE /imposters');
  assert.is((parse(rest[0], 'mountebank') as { imposters: unknown[] }).imposters.length, 1);
});

test.run();

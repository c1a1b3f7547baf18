import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startInProcess, call, type InProcessSvc } from '../../support/in-process.js';

let svc: InProcessSvc;
let dir = '';
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-script-'));
  mkdirSync(join(dir, 'lib'));
  writeFileSync(join(dir, 'lib', 'hello.rhai'), 'fn respond(ctx) { http(200, "from file " + ctx.request.path) }');
  writeFileSync(join(dir, 'shared.rhai'), 'http(202, "shared")');
  writeFileSync(join(tmpdir(), 'svc-outside.rhai'), 'http(200)');
  svc = await startInProcess({ allowInjection: true, scriptsDir: dir });
});
test.after(async () => {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(tmpdir(), 'svc-outside.rhai'), { force: true });
});

const script = (code: string) => ({ _svc: { script: { code } } });
const json = (body: string) => JSON.parse(body);

test('ctx.request members: method, path, query, headers (lowercased), header(), body, json, isBinary', async () => {
  const port = await svc.createImposter({
    stubs: [
      {
        responses: [
          script(`
      let r = ctx.request;
      http(200, #{ method: r.method, path: r.path, q: r.query.a, h: r.headers["x-thing"], hf: r.header("X-THING"),
                   missing: r.header("nope"), body: r.body, name: if "json" in r { r.json.name } else { "-" }, bin: r.isBinary, hasJson: "json" in r })`),
        ],
      },
    ],
  });
  const res = await call(port, 'PUT', '/items/1?a=b', { headers: { 'X-Thing': 'v', 'Content-Type': 'application/json' }, body: '{"name":"ann"}' });
  assert.equal(json(res.body), {
    method: 'PUT',
    path: '/items/1',
    q: 'b',
    h: 'v',
    hf: 'v',
    missing: null,
    body: '{"name":"ann"}',
    name: 'ann',
    bin: false,
    hasJson: true,
  });
  const plain = await call(port, 'POST', '/p', { body: 'not json' });
  assert.equal([json(plain.body).hasJson, json(plain.body).name], [false, '-']);
});

test('a binary body arrives base64 with isBinary true and no json', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [script('http(200, #{ bin: ctx.request.isBinary, body: ctx.request.body, hasJson: "json" in ctx.request })')] }],
  });
  const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x7b]);
  const res = await call(port, 'POST', '/', { body: bytes });
  assert.equal(json(res.body), { bin: true, body: bytes.toString('base64'), hasJson: false });
});

test('routePattern exposes pathParams ({id} and :id spellings)', async () => {
  const port = await svc.createImposter({
    stubs: [
      {
        routePattern: '/users/{id}/orders/:order',
        predicates: [{ startsWith: { path: '/users/' } }],
        responses: [script('http(200, ctx.request.pathParams)')],
      },
      { responses: [script('http(200, ctx.request.pathParams)')] },
    ],
  });
  assert.equal(json((await call(port, 'GET', '/users/42/orders/a%20b')).body), { id: '42', order: 'a b' });
  assert.equal(json((await call(port, 'GET', '/elsewhere')).body), {});
});

test('ctx.stub, ctx.flowId and ctx.logger', async () => {
  const port = await svc.createImposter({
    _svc: { flowState: { flowIdSource: 'header:X-Flow' } },
    stubs: [
      {
        id: 'the-stub',
        scenarioName: 'checkout',
        requiredScenarioState: 'Started',
        responses: [
          script(`
      ctx.logger.info("hello");
      ctx.logger.debug(#{ a: 1 });
      http(200, #{ id: ctx.stub.id, scenario: ctx.stub.scenarioName, state: ctx.stub.scenarioState, flow: ctx.flowId })`),
        ],
      },
    ],
  });
  assert.equal(json((await call(port, 'GET', '/', { headers: { 'X-Flow': 'f-1' } })).body), {
    id: 'the-stub',
    scenario: 'checkout',
    state: 'Started',
    flow: 'f-1',
  });
  assert.is(json((await call(port, 'GET', '/')).body).flow, String(port));
});

test('every ctx.state operation, scoped per flow, and ctx.store.flow(id)', async () => {
  const port = await svc.createImposter({
    _svc: { flowState: { flowIdSource: 'header:X-Flow' } },
    stubs: [
      {
        responses: [
          script(`
      let s = ctx.state;
      let out = #{};
      out.before = s.get("k");
      out.dflt = s.get_or("k", "d");
      s.set("k", #{ n: 1 });
      out.after = s.get("k");
      out.exists = s.exists("k");
      out.incr = s.incr("c");
      out.incr_by = s.incr_by("c", 5);
      out.cas_no = s.cas("k", "x", 2);
      out.cas_yes = s.cas("k", #{ n: 1 }, 2);
      out.k = s.get("k");
      out.ttl_missing = s.ttl("nope", 10);
      out.ttl_key = s.ttl("k", 10);
      s.ttl(60);
      out.deleted = s.delete("k");
      out.gone = s.exists("k");
      ctx.store.flow("other").set("x", 9);
      out.other = ctx.store.flow("other").get("x");
      s.set("z", 1);
      s.ttl("z", 0);
      out.z = s.exists("z");
      let t = ctx.store.flow("scratch");
      t.set("w", 1);
      t.clear();
      out.w = t.exists("w");
      http(200, out)`),
        ],
      },
    ],
  });
  const body = json((await call(port, 'GET', '/', { headers: { 'X-Flow': 'a' } })).body);
  assert.equal(body, {
    before: null,
    dflt: 'd',
    after: { n: 1 },
    exists: true,
    incr: 1,
    incr_by: 6,
    cas_no: { applied: false, current: { n: 1 } },
    cas_yes: { applied: true },
    k: 2,
    ttl_missing: false,
    ttl_key: true,
    deleted: true,
    gone: false,
    other: 9,
    z: false,
    w: false,
  });
  const again = json((await call(port, 'GET', '/', { headers: { 'X-Flow': 'a' } })).body);
  assert.is(again.incr, 7, 'the counter persisted across requests of the flow');
  const other = json((await call(port, 'GET', '/', { headers: { 'X-Flow': 'b' } })).body);
  assert.is(other.incr, 1, 'another flow has its own counter');
});

test('result constructors: reset() resets the connection; pass() and nothing fall through; delay(ms) waits then falls through', async () => {
  const port = await svc.createImposter({
    stubs: [
      { predicates: [{ equals: { path: '/reset' } }], responses: [script('reset()')] },
      { predicates: [{ equals: { path: '/pass' } }], responses: [script('pass()')] },
      { predicates: [{ equals: { path: '/nothing' } }], responses: [script('let x = 1;')] },
      { predicates: [{ equals: { path: '/delay' } }], responses: [script('delay(200)')] },
      { predicates: [{ equals: { path: '/pass' } }], responses: [{ is: { body: 'next stub' } }] },
    ],
    defaultResponse: { statusCode: 404, body: 'default' },
  });
  await call(port, 'GET', '/reset').then(
    () => assert.unreachable('reset() must not answer'),
    (err: NodeJS.ErrnoException) => assert.is(err.code, 'ECONNRESET'),
  );
  assert.is((await call(port, 'GET', '/pass')).body, 'next stub');
  const nothing = await call(port, 'GET', '/nothing');
  assert.is(nothing.status, 404);
  assert.is(nothing.body, 'default');
  const started = Date.now();
  const delayed = await call(port, 'GET', '/delay');
  assert.ok(Date.now() - started >= 190);
  assert.is(delayed.body, 'default');
});

test('file and ref scripts resolve under --scripts-dir; engine inferred from .rhai', async () => {
  const port = await svc.createImposter({
    _svc: { scripts: { shared: { file: 'shared.rhai' }, inline: { code: 'http(203)' } } },
    stubs: [
      { predicates: [{ equals: { path: '/file' } }], responses: [{ _svc: { script: { file: 'lib/hello.rhai' } } }] },
      { predicates: [{ equals: { path: '/ref' } }], responses: [{ _svc: { script: { ref: 'shared' } } }] },
      { responses: [{ _svc: { script: { ref: 'inline' } } }] },
    ],
  });
  const file = await call(port, 'GET', '/file');
  assert.is(file.body, 'from file /file');
  assert.is((await call(port, 'GET', '/ref')).status, 202);
  assert.is((await call(port, 'GET', '/other')).status, 203);
});

test('bad specs are 400: escaping --scripts-dir, unreadable file, unknown ref, ref to ref, two sources, unknown engine', async () => {
  const cases: Array<[unknown, RegExp, Record<string, unknown>?]> = [
    [{ file: '../svc-outside.rhai' }, /outside the scripts directory/],
    [{ file: join(tmpdir(), 'svc-outside.rhai') }, /outside the scripts directory/],
    [{ file: 'missing.rhai' }, /cannot read script file 'missing.rhai'/],
    [{ ref: 'nope' }, /unknown script ref 'nope'/],
    [{ ref: 'a' }, /points at another ref|may not be a ref/, { a: { ref: 'b' }, b: { code: '1' } }],
    [{ code: '1', file: 'x.rhai' }, /exactly one of code, file or ref/],
    [{ engine: 'lua', code: '1' }, /'engine' must be rhai, javascript or js/],
  ];
  for (const [spec, message, registry] of cases) {
    const res = await svc.admin('POST', '/imposters', {
      protocol: 'http',
      ...(registry ? { _svc: { scripts: registry } } : {}),
      stubs: [{ responses: [{ _svc: { script: spec } }] }],
    });
    assert.is(res.status, 400, JSON.stringify(spec));
    assert.match(JSON.stringify(res.json.errors), message);
  }
});

test('stub edits validate against the imposter registry (PUT stubs with an unknown ref is 400)', async () => {
  const port = await svc.createImposter({ _svc: { scripts: { ok: { code: 'http(200, "ok")' } } }, stubs: [] });
  const bad = await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [{ responses: [{ _svc: { script: { ref: 'missing' } } }] }] });
  assert.is(bad.status, 400);
  const good = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { responses: [{ _svc: { script: { ref: 'ok' } } }] } });
  assert.is(good.status, 200);
  assert.is((await call(port, 'GET', '/')).body, 'ok');
});

test('debug mode reports responseType _svc for a script response', async () => {
  const port = await svc.createImposter({ stubs: [{ responses: [script('http(200)')] }] });
  const res = await call(port, 'GET', '/', { headers: { 'X-Svc-Debug': 'true' } });
  assert.is(json(res.body).matchResult.responsePreview.responseType, '_svc');
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../../support/in-process.js';

const svc = inProcessForSuite(test, { allowInjection: true, warmScripts: true, keepImposters: true });

const holder = (code: string, engine: string) => ({ _svc: { script: { engine, code } } });

/** The same scripts in both engines (JavaScript: the script is a function body, so bare code `return`s). */
const CODE = {
  rhai: {
    vip: 'fn matches(ctx) { ctx.request.query.vip == "1" }',
    pub: 'ctx.request.path.starts_with("/pub")',
    notBoolean: '42',
    transform: 'fn transform(ctx) { http(ctx.response.status + 1, #{ n: ctx.response.json.n + 1, h: ctx.response.header("x-orig") }) }',
    pass: 'pass()',
    delay: 'fn delay(ctx) { 150 }',
    fail: 'throw "no"',
    spin: 'loop { }',
    reset: 'fn transform(ctx) { reset() }',
  },
  javascript: {
    vip: 'function matches(ctx) { return ctx.request.query.vip === "1"; }',
    pub: 'return ctx.request.path.startsWith("/pub");',
    notBoolean: 'return 42;',
    transform: 'function transform(ctx) { return http(ctx.response.status + 1, { n: ctx.response.json.n + 1, h: ctx.response.header("x-orig") }); }',
    pass: 'return pass();',
    delay: 'function delay(ctx) { return 150; }',
    fail: 'throw new Error("no");',
    // Slow iterations: the deadline comes long before the loop bound (an error, not a timeout).
    spin: 'for (;;) { JSON.stringify({ a: [1, 2, 3] }); }',
    reset: 'function transform(ctx) { return reset(); }',
  },
};

for (const engine of ['rhai', 'javascript'] as const) {
  const code = CODE[engine];
  test(`${engine}: predicate placement matches(ctx), also nested in not`, async () => {
    const port = await svc.createImposter({
      stubs: [
        { predicates: [holder(code.vip, engine)], responses: [{ is: { body: 'vip' } }] },
        { predicates: [{ not: holder(code.pub, engine) }], responses: [{ is: { body: 'private' } }] },
        { responses: [{ is: { body: 'public' } }] },
      ],
    });
    assert.is((await call(port, 'GET', '/x?vip=1')).body, 'vip');
    assert.is((await call(port, 'GET', '/x')).body, 'private');
    assert.is((await call(port, 'GET', '/pub/x')).body, 'public');
  });

  test(`${engine}: a predicate script returning a non-boolean is a 500 script error`, async () => {
    const port = await svc.createImposter({ stubs: [{ predicates: [holder(code.notBoolean, engine)], responses: [{ is: {} }] }] });
    const res = await call(port, 'GET', '/');
    assert.is(res.status, 500);
    assert.is(res.headers['x-svc-script-error'], 'true');
  });

  test(`${engine}: decorate placement transform(ctx) sees ctx.response and replaces it; pass() keeps it`, async () => {
    const port = await svc.createImposter({
      stubs: [
        {
          predicates: [{ equals: { path: '/replace' } }],
          responses: [
            {
              is: { statusCode: 201, headers: { 'X-Orig': 'o' }, body: '{"n":1}' },
              _behaviors: { decorate: holder(code.transform, engine) },
            },
          ],
        },
        { responses: [{ is: { body: 'kept' }, _behaviors: { decorate: holder(code.pass, engine) } }] },
      ],
    });
    const res = await call(port, 'GET', '/replace');
    assert.is(res.status, 202);
    assert.equal(JSON.parse(res.body), { n: 2, h: 'o' });
    assert.is((await call(port, 'GET', '/other')).body, 'kept');
  });

  test(`${engine}: wait placement delay(ctx) returns milliseconds`, async () => {
    const port = await svc.createImposter({
      stubs: [{ responses: [{ is: { body: 'late' }, _behaviors: { wait: holder(code.delay, engine) } }] }],
    });
    const started = Date.now();
    const res = await call(port, 'GET', '/');
    assert.ok(Date.now() - started >= 140);
    assert.is(res.body, 'late');
  });

  test(`${engine}: a failing decorate script serves the undecorated response marked x-svc-decorate-error (docs/errors.md decorate row)`, async () => {
    const port = await svc.createImposter({
      stubs: [{ responses: [{ is: { statusCode: 201, headers: { 'X-Orig': 'o' }, body: 'x' }, _behaviors: { decorate: holder(code.fail, engine) } }] }],
    });
    const res = await call(port, 'GET', '/');
    assert.is(res.status, 201);
    assert.is(res.body, 'x');
    assert.is(res.headers['x-orig'], 'o');
    assert.is(res.headers['x-svc-decorate-error'], 'true');
    assert.is(res.headers['x-svc-script-error'], undefined);
    assert.is(res.headers['x-svc-script-timeout'], undefined);
  });

  test(`${engine}: a decorate script past its deadline serves the undecorated response marked as a timeout`, async () => {
    const port = await svc.createImposter({
      _svc: { scriptEngine: { timeoutMs: 300 } },
      stubs: [{ responses: [{ is: { body: 'x' }, _behaviors: { decorate: holder(code.spin, engine) } }] }],
    });
    const res = await call(port, 'GET', '/');
    assert.is(res.status, 200);
    assert.is(res.body, 'x');
    assert.is(res.headers['x-svc-decorate-error'], 'true');
    assert.is(res.headers['x-svc-script-timeout'], 'true');
  });

  test(`${engine}: a decorate script returning reset() resets the connection`, async () => {
    const port = await svc.createImposter({
      stubs: [{ responses: [{ is: { body: 'x' }, _behaviors: { decorate: holder(code.reset, engine) } }] }],
    });
    const error = await call(port, 'GET', '/').then(
      () => undefined,
      (err: NodeJS.ErrnoException) => err,
    );
    assert.ok(error, 'the request fails');
    assert.is(error.code, 'ECONNRESET');
  });
}

test('a decorate script alone gets the implicit in-memory flow store (state persists)', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [{ is: { body: 'x' }, _behaviors: { decorate: holder('http(200, `${ctx.state.incr("n")}`)', 'rhai') } }] }],
  });
  assert.is((await call(port, 'GET', '/')).body, '1');
  assert.is((await call(port, 'GET', '/')).body, '2');
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';

const svc = inProcessForSuite(test, { allowInjection: true, keepImposters: true });

const script = (code: string) => ({ _svc: { script: { code } } });

test('respond(ctx) answers with http(status, body) and chained headers', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [script('fn respond(ctx) { http(201, "hi " + ctx.request.path).header("X-A", "1") }')] }],
  });
  const res = await call(port, 'GET', '/there');
  assert.is(res.status, 201);
  assert.is(res.body, 'hi /there');
  assert.is(res.headers['x-a'], '1');
});

test('a bare body with ctx in scope works and a map body is JSON', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [script('http(200, #{ method: ctx.request.method, q: ctx.request.query.a })')] }],
  });
  const res = await call(port, 'POST', '/x?a=b');
  assert.is(res.status, 200);
  assert.is(res.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(res.body), { method: 'POST', q: 'b' });
});

test('state persists across requests (incr)', async () => {
  const port = await svc.createImposter({
    stubs: [{ responses: [script('let n = ctx.state.incr("hits"); http(200, `${n}`)')] }],
  });
  assert.is((await call(port, 'GET', '/')).body, '1');
  assert.is((await call(port, 'GET', '/')).body, '2');
  assert.is((await call(port, 'GET', '/')).body, '3');
});

test.run();

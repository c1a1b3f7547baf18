import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';

const svc = inProcessForSuite(test, { allowInjection: true, warmScripts: true, keepImposters: true });

const script = (code: string) => ({ _svc: { script: { engine: 'js', code } } });

test('javascript respond(ctx): http(status, body).header(), ctx.request members, JSON body', async () => {
  const port = await svc.createImposter({
    stubs: [
      {
        routePattern: '/users/:id',
        responses: [
          script(`
      function respond(ctx) {
        const r = ctx.request;
        return http(200, { id: r.pathParams.id, q: r.query.a, h: r.header('X-THING'), name: r.json && r.json.name, method: r.method, flow: ctx.flowId })
          .header('X-A', '1');
      }`),
        ],
      },
    ],
  });
  const res = await call(port, 'POST', '/users/7?a=b', { headers: { 'X-Thing': 'v' }, body: '{"name":"ann"}' });
  assert.is(res.status, 200);
  assert.is(res.headers['x-a'], '1');
  assert.is(res.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(res.body), { id: '7', q: 'b', h: 'v', name: 'ann', method: 'POST', flow: String(port) });
});

test('javascript ctx.state (camelCase and snake_case) persists across requests; store.flow and cas', async () => {
  const port = await svc.createImposter({
    stubs: [
      {
        responses: [
          script(`
      const n = ctx.state.incrBy('n', 2);
      ctx.state.incr_by('m', 1);
      const other = ctx.store.flow('elsewhere');
      other.set('seen', n);
      const cas = ctx.state.cas('k', null, n);
      return http(200, { n, m: ctx.state.getOr('m', 0), dflt: ctx.state.get_or('nope', 'd'), seen: other.get('seen'), cas, exists: ctx.state.exists('k') });`),
        ],
      },
    ],
  });
  const first = JSON.parse((await call(port, 'GET', '/')).body);
  assert.equal(first, { n: 2, m: 1, dflt: 'd', seen: 2, cas: { applied: true }, exists: true });
  const second = JSON.parse((await call(port, 'GET', '/')).body);
  assert.equal(second, { n: 4, m: 2, dflt: 'd', seen: 4, cas: { applied: false, current: 2 }, exists: true });
});

test('javascript: returning nothing passes to the next stub; reset() resets', async () => {
  const port = await svc.createImposter({
    stubs: [
      { predicates: [{ equals: { path: '/reset' } }], responses: [script('return reset();')] },
      { responses: [script('ctx.logger.info("passing");')] },
      { responses: [{ is: { body: 'next' } }] },
    ],
  });
  assert.is((await call(port, 'GET', '/')).body, 'next');
  await call(port, 'GET', '/reset').then(
    () => assert.unreachable('reset() must not answer'),
    (err: NodeJS.ErrnoException) => assert.is(err.code, 'ECONNRESET'),
  );
});

test('engine inferred from _svc.scriptEngine.defaultEngine', async () => {
  const port = await svc.createImposter({
    _svc: { scriptEngine: { defaultEngine: 'javascript' } },
    stubs: [{ responses: [{ _svc: { script: { code: 'return http(201, "js by default");' } } }] }],
  });
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 201);
  assert.is(res.body, 'js by default');
});

test.run();

/**
 * JavaScript behaviors in the sandbox: decorate (both mountebank signatures, docs/errors.md failure
 * matrix), function waits in both spellings, and the proxy's addDecorateBehavior / injected
 * predicateGenerators.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../../support/in-process.js';
import { jsonHandler, startUpstream } from '../../../support/upstream.js';

const test = suite('scripted behaviors');
const svc = inProcessForSuite(test, { allowInjection: true, warmScripts: true });

const imposter = (stubs: unknown[], extra: Record<string, unknown> = {}): Promise<number> => svc.createImposter({ stubs, ...extra });

test('decorate: config.response mutated in place, or a new response returned', async () => {
  const port = await imposter([
    {
      predicates: [{ equals: { path: '/mutate' } }],
      responses: [
        {
          is: { statusCode: 200, body: 'hi' },
          _behaviors: {
            decorate: 'function (config) { config.response.body += " " + config.request.query.name; config.response.headers = { "X-Dec": "1" }; }',
          },
        },
      ],
    },
    { responses: [{ is: { body: 'ignored' }, _behaviors: { decorate: 'function (config) { return { statusCode: 201, body: config.request.path }; }' } }] },
  ]);
  const mutated = await call(port, 'GET', '/mutate?name=ann');
  assert.is(mutated.body, 'hi ann');
  assert.is(mutated.headers['x-dec'], '1');
  const returned = await call(port, 'GET', '/returned');
  assert.is(returned.status, 201);
  assert.is(returned.body, '/returned');
});

test('decorate: the older function (request, response) signature works on the second argument', async () => {
  const port = await imposter([
    { responses: [{ is: { body: 'a' }, _behaviors: { decorate: 'function (request, response) { response.body = response.body + "b"; }' } }] },
  ]);
  assert.is((await call(port, 'GET', '/')).body, 'ab');
});

test('decorate runs after copy: it sees the substituted response', async () => {
  const port = await imposter([
    {
      responses: [
        {
          is: { body: 'id=${ID}' },
          _behaviors: {
            decorate: 'function (config) { config.response.body = config.response.body.toUpperCase(); }',
            copy: [{ from: 'path', into: '${ID}', using: { method: 'regex', selector: '\\w+' } }],
          },
        },
      ],
    },
  ]);
  assert.is((await call(port, 'GET', '/abc')).body, 'ID=ABC');
});

test('decorate: config.state persists per imposter across calls, shared with inject responses', async () => {
  const port = await imposter([
    {
      predicates: [{ equals: { path: '/inject' } }],
      responses: [{ inject: 'function (config) { config.state.n = (config.state.n || 0) + 10; return { body: String(config.state.n) }; }' }],
    },
    {
      responses: [
        {
          is: { body: '' },
          _behaviors: { decorate: 'function (config) { config.state.n = (config.state.n || 0) + 1; config.response.body = String(config.state.n); }' },
        },
      ],
    },
  ]);
  const bodies = [];
  for (const path of ['/d', '/d', '/inject', '/d']) bodies.push((await call(port, 'GET', path)).body);
  assert.equal(bodies, ['1', '2', '12', '13']);
});

test('decorate error: the undecorated response, marked x-svc-decorate-error', async () => {
  const port = await imposter([
    {
      responses: [
        {
          is: { statusCode: 202, headers: { 'X-Kept': 'k' }, body: 'plain' },
          _behaviors: { decorate: 'function (config) { config.response.body = "half"; throw new Error("boom"); }' },
        },
      ],
    },
  ]);
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 202);
  assert.is(res.body, 'plain');
  assert.is(res.headers['x-kept'], 'k');
  assert.is(res.headers['x-svc-decorate-error'], 'true');
  assert.is(res.headers['x-svc-script-timeout'], undefined);
});

test('decorate timeout: the undecorated 200 with x-svc-decorate-error and x-svc-script-timeout, released at the deadline', async () => {
  const port = await imposter(
    [{ responses: [{ is: { body: 'plain' }, _behaviors: { decorate: 'function (config) { while (true) { JSON.stringify(new Array(1000).fill(1)); } }' } }] }],
    // Slow iterations: the 10M loop-iteration bound (an error, not a timeout) stays far past the deadline.
    { _svc: { scriptEngine: { timeoutMs: 300 } } },
  );
  const started = Date.now();
  const res = await call(port, 'GET', '/');
  const ms = Date.now() - started;
  assert.is(res.status, 200);
  assert.is(res.body, 'plain');
  assert.is(res.headers['x-svc-decorate-error'], 'true');
  assert.is(res.headers['x-svc-script-timeout'], 'true');
  // Below the 5000 ms default deadline, with room for late timers under load.
  assert.ok(ms >= 290 && ms < 4000, `answered after ${ms} ms`);
});

test('function wait: a string function and {inject} both delay by what they return (called without arguments, as mountebank)', async () => {
  const port = await imposter([
    {
      responses: [
        { is: { body: 'string' }, _behaviors: { wait: 'function () { return 150; }' } },
        { is: { body: 'inject' }, _behaviors: { wait: { inject: 'function () { return 100 * 2; }' } } },
      ],
    },
  ]);
  for (const [path, body] of [
    ['/?ms=1', 'string'],
    ['/?ms=200', 'inject'],
  ]) {
    const started = Date.now();
    const res = await call(port, 'GET', path);
    assert.is(res.body, body);
    assert.ok(Date.now() - started >= (body === 'string' ? 145 : 195), `${body} waited ${Date.now() - started} ms`);
  }
});

test('function wait that throws: 500 invalid injection', async () => {
  const port = await imposter([{ responses: [{ is: { body: 'x' }, _behaviors: { wait: 'function () { throw new Error("no"); }' } }] }]);
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 500);
  assert.is(JSON.parse(res.body).errors[0].code, 'invalid injection');
});

test('proxy addDecorateBehavior: the replayed recording is decorated', async () => {
  const upstream = await startUpstream('http', jsonHandler({ from: 'origin' }));
  try {
    const port = await imposter([
      { responses: [{ proxy: { to: upstream.origin, addDecorateBehavior: 'function (config) { config.response.headers["X-Replayed"] = "yes"; }' } }] },
    ]);
    const first = await call(port, 'GET', '/d');
    assert.is(first.headers['x-replayed'], undefined, 'the live proxied answer is not decorated');
    const replay = await call(port, 'GET', '/d');
    assert.is(replay.headers['x-replayed'], 'yes');
    assert.equal(JSON.parse(replay.body), { from: 'origin' });
  } finally {
    await upstream.stop();
  }
});

test('proxy predicateGenerators with inject: the function returns the recorded predicates', async () => {
  const upstream = await startUpstream('http', jsonHandler({ ok: true }));
  try {
    const generator = 'function (config) { return [{ equals: { path: config.request.path, method: config.request.method } }]; }';
    const port = await imposter([{ responses: [{ proxy: { to: upstream.origin, predicateGenerators: [{ inject: generator }] } }] }]);
    await call(port, 'PUT', '/gen');
    const stubs = (await svc.admin('GET', `/imposters/${port}`)).json.stubs;
    assert.equal(stubs[0].predicates, [{ equals: { path: '/gen', method: 'PUT' } }]);
  } finally {
    await upstream.stop();
  }
});

test.run();

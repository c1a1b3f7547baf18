/**
 * `inject` responses and predicates over real sockets, through the admin API: mountebank's
 * signatures, state per imposter, `config.request` (docs/responses.md), mountebank's post-processing of
 * the result, the docs/errors.md failure matrix, and the sandbox's isolation from the serving loop.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../../support/in-process.js';

const test = suite('script-js: inject end to end');
const svc = inProcessForSuite(test, { allowInjection: true, warmScripts: true });

const imposter = (config: Record<string, unknown>): Promise<number> => svc.createImposter(config);

const injectOnly = (inject: string, extra: Record<string, unknown> = {}) => ({ stubs: [{ responses: [{ inject }] }], ...extra });
// Deadline tests spin with slow iterations, so the 10M loop-iteration bound (a 400) never comes first on an idle machine.
const fast = { _svc: { scriptEngine: { timeoutMs: 300 } } };

function errorsOf(body: string): Array<Record<string, unknown>> {
  return (JSON.parse(body) as { errors: Array<Record<string, unknown>> }).errors;
}

test("config.request carries mountebank's request fields", async () => {
  const port = await imposter(injectOnly('function (config) { return { body: config.request }; }'));
  const res = await call(port, 'POST', '/items/7?color=red&tag=a&tag=b', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Trace': 'abc' },
    body: 'qty=2',
  });
  assert.is(res.status, 200);
  const seen = JSON.parse(res.body);
  assert.equal(Object.keys(seen), ['requestFrom', 'method', 'path', 'query', 'headers', 'body', 'ip', 'form']);
  assert.is(seen.method, 'POST');
  assert.is(seen.path, '/items/7');
  assert.equal(seen.query, { color: 'red', tag: ['a', 'b'] });
  assert.is(seen.headers['X-Trace'], 'abc');
  assert.is(seen.body, 'qty=2');
  assert.equal(seen.form, { qty: '2' });
  assert.match(seen.requestFrom, /127\.0\.0\.1:\d+$/);
});

test('function (config, state) and the legacy (request, state, logger, callback) form', async () => {
  const port = await imposter({
    stubs: [
      {
        predicates: [{ equals: { path: '/config' } }],
        responses: [{ inject: 'function (config, state) { return { statusCode: 201, body: config.request.method + " " + (state === undefined) }; }' }],
      },
      {
        responses: [
          {
            inject:
              'function (request, state, logger, callback) { logger.info("legacy"); callback({ statusCode: 202, body: request.method + " " + request.path }); }',
          },
        ],
      },
    ],
  });
  const modern = await call(port, 'PUT', '/config');
  assert.is(modern.status, 201);
  assert.is(modern.body, 'PUT false');
  const legacy = await call(port, 'DELETE', '/legacy');
  assert.is(legacy.status, 202);
  assert.is(legacy.body, 'DELETE /legacy');
});

test('an async callback answers the request', async () => {
  const port = await imposter(injectOnly('function (config) { Promise.resolve(41).then((n) => config.callback({ body: String(n + 1) })); }'));
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 200);
  assert.is(res.body, '42');
});

test('state persists across requests of one imposter and is not shared with another', async () => {
  const counter = injectOnly('function (config) { config.state.n = (config.state.n || 0) + 1; return { body: String(config.state.n) }; }');
  const a = await imposter(counter);
  const b = await imposter(counter);
  assert.is((await call(a, 'GET', '/')).body, '1');
  assert.is((await call(a, 'GET', '/')).body, '2');
  assert.is((await call(b, 'GET', '/')).body, '1');
  assert.is((await call(a, 'GET', '/')).body, '3');
});

test('a replaced imposter starts with fresh state', async () => {
  const counter = injectOnly('function (config) { config.state.n = (config.state.n || 0) + 1; return { body: String(config.state.n) }; }');
  const port = await imposter(counter);
  await call(port, 'GET', '/');
  assert.is((await call(port, 'GET', '/')).body, '2');
  await svc.admin('DELETE', `/imposters/${port}`);
  await svc.admin('POST', '/imposters', { port, protocol: 'http', ...counter });
  assert.is((await call(port, 'GET', '/')).body, '1');
});

test('the result is post-processed like is: defaultResponse fallback, JSON body, binary mode, Connection', async () => {
  const port = await imposter({
    defaultResponse: { statusCode: 418, headers: { 'X-Default': 'yes' } },
    stubs: [
      { predicates: [{ equals: { path: '/json' } }], responses: [{ inject: 'function () { return { body: { ok: true } }; }' }] },
      {
        predicates: [{ equals: { path: '/bin' } }],
        responses: [{ inject: 'function () { return { statusCode: 200, headers: {}, body: "AP8B", _mode: "binary" }; }' }],
      },
    ],
  });
  const json = await call(port, 'GET', '/json');
  assert.is(json.status, 418);
  assert.is(json.headers['x-default'], 'yes');
  assert.is(json.body, JSON.stringify({ ok: true }, null, 4));
  assert.is(json.headers.connection, 'close');
  const bin = await call(port, 'GET', '/bin');
  assert.ok(bin.bodyBytes.equals(Buffer.from([0, 255, 1])));
});

test('inject predicates select stubs; the request is theirs to read', async () => {
  const port = await imposter({
    stubs: [
      { predicates: [{ inject: 'function (config) { return config.request.headers["X-Role"] === "admin"; }' }], responses: [{ is: { body: 'admin' } }] },
      { predicates: [{ inject: 'function (request, logger) { return request.path.startsWith("/pub"); }' }], responses: [{ is: { body: 'public' } }] },
    ],
  });
  assert.is((await call(port, 'GET', '/x', { headers: { 'X-Role': 'admin' } })).body, 'admin');
  assert.is((await call(port, 'GET', '/pub/1')).body, 'public');
  assert.is((await call(port, 'GET', '/other')).body, '');
});

test("verify evaluates inject predicates in the imposter's sandbox", async () => {
  const port = await imposter({ recordRequests: true, stubs: [{ responses: [{ is: { body: 'ok' } }] }] });
  await call(port, 'GET', '/a');
  await call(port, 'GET', '/b');
  const res = await svc.admin('POST', `/imposters/${port}/verify`, {
    predicates: [{ inject: 'function (config) { return config.request.path === "/b"; }' }],
  });
  assert.is(res.status, 200, res.body);
  assert.equal(res.json, { matched: 1, total: 2 });
});

test('response inject error: 400 invalid injection', async () => {
  const port = await imposter(injectOnly('function () { throw new Error("boom"); }'));
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 400);
  const [entry] = errorsOf(res.body);
  assert.is(entry.code, 'invalid injection');
  assert.match(String(entry.data), /boom/);
  assert.is(res.headers['x-svc-script-timeout'], undefined);
});

test('response inject timeout: 504 injection timeout with x-svc-script-timeout, shortly after the deadline', async () => {
  const port = await imposter(injectOnly('function () { while (true) { JSON.stringify(new Array(1000).fill(1)); } }', fast));
  const started = performance.now();
  const res = await call(port, 'GET', '/');
  const elapsed = performance.now() - started;
  assert.is(res.status, 504);
  assert.is(res.headers['x-svc-script-timeout'], 'true');
  assert.is(errorsOf(res.body)[0].code, 'injection timeout');
  // Well below the 5000 ms default deadline, with room for a loaded machine's late timers.
  assert.ok(elapsed < 4000, `answered after ${elapsed} ms`);
});

test('predicate inject error: 400 invalid predicate injection', async () => {
  const port = await imposter({
    stubs: [{ predicates: [{ inject: 'function (config) { return config.nope.deeper; }' }], responses: [{ is: { body: 'x' } }] }],
  });
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 400);
  assert.is(errorsOf(res.body)[0].code, 'invalid predicate injection');
});

test('predicate inject timeout: 504 predicate injection timeout with x-svc-script-timeout', async () => {
  const port = await imposter({
    ...fast,
    stubs: [{ predicates: [{ inject: 'function () { for (;;) { JSON.stringify(new Array(1000).fill(1)); } }' }], responses: [{ is: { body: 'x' } }] }],
  });
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 504);
  assert.is(res.headers['x-svc-script-timeout'], 'true');
  assert.is(errorsOf(res.body)[0].code, 'predicate injection timeout');
});

test('debug matching with a spinning inject predicate: 504 "Debug matching timed out" with x-svc-script-timeout', async () => {
  const port = await imposter({
    ...fast,
    stubs: [{ predicates: [{ inject: 'function () { for (;;) { JSON.stringify(new Array(1000).fill(1)); } }' }], responses: [{ is: { body: 'x' } }] }],
  });
  const res = await call(port, 'GET', '/', { headers: { 'X-Svc-Debug': 'true' } });
  assert.is(res.status, 504);
  assert.is(res.headers['x-svc-script-timeout'], 'true');
  assert.is(errorsOf(res.body)[0].message, 'Debug matching timed out');
});

test('without _svc.scriptEngine the deadline is 5000 ms', async () => {
  const slowButFine = 'function () { const end = Date.now() + 400; while (Date.now() < end) {} return { body: "done" }; }';
  const byDefault = await imposter(injectOnly(slowButFine));
  assert.is((await call(byDefault, 'GET', '/')).body, 'done');
  const tight = await imposter(injectOnly(slowButFine, { _svc: { scriptEngine: { timeoutMs: 100 } } }));
  assert.is((await call(tight, 'GET', '/')).status, 504);
});

test('while(true) on one imposter: 504 at its deadline while another imposter keeps answering fast', async () => {
  // A long spin leaves a loaded machine time for many static answers; the deadline itself is tested above.
  // Slow iterations: the sandbox's 10M loop-iteration bound (a 400) stays far beyond the deadline.
  const spinning = await imposter(
    injectOnly('function () { while (true) { JSON.stringify(new Array(1000).fill(1)); } }', { _svc: { scriptEngine: { timeoutMs: 3000 } } }),
  );
  const steady = await imposter({ stubs: [{ responses: [{ is: { body: 'steady' } }] }] });
  await call(steady, 'GET', '/');
  const started = performance.now();
  const spin = call(spinning, 'GET', '/').then((res) => ({ res, elapsed: performance.now() - started }));
  const latencies: number[] = [];
  let done = false;
  // Either way: a failed request must end the loop below, and its rejection is `await spin`'s to report.
  const over = (): void => {
    done = true;
  };
  void spin.then(over, over);
  while (!done) {
    const t = performance.now();
    const res = await call(steady, 'GET', '/');
    latencies.push(performance.now() - t);
    assert.is(res.body, 'steady');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const { res, elapsed } = await spin;
  assert.is(res.status, 504);
  assert.ok(latencies.length >= 10, `only ${latencies.length} static requests during the spin`);
  // A blocked event loop would hold a static request for most of the spin.
  const worst = Math.max(...latencies);
  assert.ok(worst < elapsed / 3, `static stub took ${worst.toFixed(1)} ms while a script spun for ${elapsed.toFixed(0)} ms`);
});

test('deep recursion is an invalid injection and the server stays up', async () => {
  const port = await imposter({
    stubs: [
      { predicates: [{ equals: { path: '/deep' } }], responses: [{ inject: 'function recurse() { return recurse(); }' }] },
      { responses: [{ inject: 'function () { return { body: "still here" }; }' }] },
    ],
  });
  const res = await call(port, 'GET', '/deep');
  assert.is(res.status, 400);
  assert.match(String(errorsOf(res.body)[0].data), /recursion/);
  assert.is((await call(port, 'GET', '/after')).body, 'still here');
  assert.is((await svc.admin('GET', '/imposters')).status, 200);
});

test('a memory bomb is refused', async () => {
  // A deadline the bomb never reaches on a loaded machine: the outcome is the memory limit, not a 504.
  const port = await imposter(
    injectOnly('function () { const hog = []; while (true) hog.push(new Array(100000).fill(7)); }', { _svc: { scriptEngine: { timeoutMs: 60000 } } }),
  );
  const res = await call(port, 'GET', '/', { timeoutMs: 120000 });
  assert.is(res.status, 400);
  assert.match(String(errorsOf(res.body)[0].data), /out of memory/);
});

test('scripts cannot reach process, require, the filesystem or the network', async () => {
  const port = await imposter({
    stubs: [
      {
        predicates: [{ equals: { path: '/globals' } }],
        responses: [{ inject: 'function () { return { body: [typeof process, typeof require, typeof globalThis.fetch, typeof setTimeout].join() }; }' }],
      },
      {
        predicates: [{ equals: { path: '/require' } }],
        responses: [{ inject: 'function () { return { body: require("fs").readFileSync("/etc/passwd", "utf8") }; }' }],
      },
      {
        predicates: [{ equals: { path: '/import' } }],
        responses: [{ inject: 'async function () { const net = await import("net"); return { body: typeof net.connect }; }' }],
      },
      { predicates: [{ equals: { path: '/escape' } }], responses: [{ inject: 'function () { return { body: String(Function("return this")().process) }; }' }] },
    ],
  });
  assert.is((await call(port, 'GET', '/globals')).body, 'undefined,undefined,undefined,undefined');
  const required = await call(port, 'GET', '/require');
  assert.is(required.status, 400);
  assert.match(String(errorsOf(required.body)[0].data), /require/);
  assert.is((await call(port, 'GET', '/import')).status, 400);
  assert.is((await call(port, 'GET', '/escape')).body, 'undefined');
});

test.run();

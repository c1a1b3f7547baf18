/**
 * The JavaScript host through its API: mountebank's function signatures, state per imposter, the
 * logger, and every way a script can fail (each with the error class docs/errors.md branches on).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createJsScriptHost, ScriptError, ScriptTimeoutError, type JsScriptHost } from '../../../../engine/script/js/index.js';
import { createLogger, type Logger } from '../../../../engine/log/index.js';

const test = suite('script-js: host');
let host: JsScriptHost;
let log: Logger;
let nextScope = 1;

const request = {
  requestFrom: '127.0.0.1:5000',
  method: 'POST',
  path: '/orders',
  query: { q: '1' },
  headers: { 'Content-Type': 'application/json' },
  body: '{"id":7}',
  ip: '127.0.0.1',
};

test.before(() => {
  log = createLogger({ level: 'debug', quiet: true });
  host = createJsScriptHost({ log });
});
test.after(async () => {
  await host.close();
});

/** A scope no other test touched, so state never leaks between tests. */
function scope(): number {
  return nextScope++;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the script to fail');
}

test('inject: config form sees config.request and config.state', async () => {
  const result = await host.inject(
    scope(),
    `function (config) {
    config.state.seen = config.request.path;
    return { statusCode: 201, headers: { 'X-Method': config.request.method }, body: { q: config.request.query.q, id: JSON.parse(config.request.body).id, state: config.state.seen } };
  }`,
    request,
  );
  assert.equal(result, { statusCode: 201, headers: { 'X-Method': 'POST' }, body: { q: '1', id: 7, state: '/orders' } });
});

test('inject: legacy (request, state, logger, callback) form gets the request fields and its own state', async () => {
  const s = scope();
  const source = `function (request, state, logger, callback) {
    state.calls = (state.calls || 0) + 1;
    callback({ body: request.method + ' ' + request.path + ' ' + state.calls });
  }`;
  assert.equal(await host.inject(s, source, request), { body: 'POST /orders 1' });
  assert.equal(await host.inject(s, source, request), { body: 'POST /orders 2' });
});

test('inject: async results through a later callback and through a returned promise', async () => {
  const viaCallback = await host.inject(
    scope(),
    `function (config) {
    Promise.resolve().then(() => config.callback({ body: 'later' }));
  }`,
    request,
  );
  assert.equal(viaCallback, { body: 'later' });
  const viaPromise = await host.inject(scope(), 'async function (config) { await null; return { body: "awaited" }; }', request);
  assert.equal(viaPromise, { body: 'awaited' });
});

test('inject: the first of callback and return value wins', async () => {
  const result = await host.inject(scope(), 'function (config) { config.callback({ body: "callback" }); return { body: "returned" }; }', request);
  assert.equal(result, { body: 'callback' });
});

test('state persists per scope and is never shared between scopes', async () => {
  const [a, b] = [scope(), scope()];
  const source = 'function (config) { config.state.n = (config.state.n || 0) + 1; return { body: String(config.state.n) }; }';
  assert.equal(await host.inject(a, source, request), { body: '1' });
  assert.equal(await host.inject(a, source, request), { body: '2' });
  assert.equal(await host.inject(b, source, request), { body: '1' });
  assert.equal(await host.inject(a, source, request), { body: '3' });
});

test('one imposter state is shared by inject, predicate and decorate', async () => {
  const s = scope();
  await host.inject(s, 'function (config) { config.state.user = "ann"; return {}; }', request);
  assert.is(await host.predicate(s, 'function (config) { return config.state.user === "ann"; }', request), true);
  const decorated = await host.decorate(s, 'function (config) { config.response.body = config.state.user; }', request, { statusCode: 200, body: '' });
  assert.equal(decorated, { statusCode: 200, body: 'ann' });
});

test('forget drops the scope state', async () => {
  const s = scope();
  const source = 'function (config) { config.state.n = (config.state.n || 0) + 1; return { body: String(config.state.n) }; }';
  await host.inject(s, source, request);
  host.forget(s);
  assert.equal(await host.inject(s, source, request), { body: '1' });
});

test('predicate: (config, logger) and the truthiness of the result', async () => {
  const s = scope();
  assert.is(await host.predicate(s, 'function (config, logger) { logger.debug("x"); return config.request.query.q === "1"; }', request), true);
  assert.is(await host.predicate(s, 'function (config) { return config.path.length; }', request), true, 'legacy request fields on config');
  assert.is(await host.predicate(s, 'function () { return 0; }', request), false);
});

test('decorate: mutate in place or return a new response; (request, response) legacy form', async () => {
  const s = scope();
  const response = { statusCode: 200, headers: { A: '1' }, body: 'plain' };
  assert.equal(await host.decorate(s, 'function (config) { config.response.headers.B = "2"; }', request, response), {
    statusCode: 200,
    headers: { A: '1', B: '2' },
    body: 'plain',
  });
  assert.equal(await host.decorate(s, 'function (request, response) { return { statusCode: 202, body: request.path + response.body }; }', request, response), {
    statusCode: 202,
    body: '/orders' + 'plain',
  });
  assert.equal(response.headers, { A: '1' }, 'the caller object is never touched');
});

test('wait: the function result as milliseconds', async () => {
  assert.is(await host.wait(scope(), 'function () { return 25; }', request), 25);
  assert.ok(Number.isNaN(await host.wait(scope(), 'function () { return "soon"; }', request)));
});

test('logger lines reach the engine log at their level, formatted like util.format', async () => {
  await host.inject(scope(), 'function (config) { config.logger.warn("user %s has %d items", "ann", 3); config.logger.info({ a: 1 }); return {}; }', request);
  const lines = log.recent().map((e) => `${e.level} ${e.message}`);
  assert.ok(lines.includes('warn svc::script user ann has 3 items'), lines.join('\n'));
  assert.ok(lines.includes('info svc::script {"a":1}'), lines.join('\n'));
  await host.inject(scope(), 'function () { console.log("via console", 1); console.error("bad"); return {}; }', request);
  const after = log.recent().map((e) => `${e.level} ${e.message}`);
  assert.ok(after.includes('info svc::script via console 1'), after.join('\n'));
  assert.ok(after.includes('error svc::script bad'), after.join('\n'));
});

test('a syntax error is a compile ScriptError', async () => {
  const err = await failure(host.inject(scope(), 'function ( {', request));
  assert.instance(err, ScriptError);
  assert.is((err as ScriptError).kind, 'compile');
  assert.match(err.message, /SyntaxError/);
});

test('an exception is a runtime ScriptError carrying its message', async () => {
  const err = await failure(host.inject(scope(), 'function () { throw new TypeError("no way"); }', request));
  assert.instance(err, ScriptError);
  assert.is((err as ScriptError).kind, 'runtime');
  assert.is(err.message, 'TypeError: no way');
});

test('a spinning script is a ScriptTimeoutError at its deadline, and the scope keeps working', async () => {
  const s = scope();
  const started = performance.now();
  const err = await failure(host.inject(s, 'function () { while (true) { JSON.stringify(new Array(1000).fill(1)); } }', request, { timeoutMs: 200 }));
  const elapsed = performance.now() - started;
  assert.instance(err, ScriptTimeoutError);
  // The script never ends: any release proves the deadline; the upper bound leaves room for late timers under load.
  assert.ok(elapsed >= 190 && elapsed < 4000, `released after ${elapsed} ms`);
  assert.equal(await host.inject(s, 'function () { return { body: "alive" }; }', request), { body: 'alive' });
});

test('a callback never called is a timeout, not a hang', async () => {
  const err = await failure(host.inject(scope(), 'function (config) { }', request, { timeoutMs: 1000 }));
  assert.instance(err, ScriptTimeoutError);
});

test('unbounded recursion is a recursion ScriptError', async () => {
  const err = await failure(host.inject(scope(), 'function f() { return f() + 1; }', request));
  assert.instance(err, ScriptError);
  assert.is((err as ScriptError).kind, 'recursion');
});

test('recursion a few hundred frames deep still works', async () => {
  const result = await host.inject(
    scope(),
    'function (config) { const depth = (n) => n === 0 ? 0 : 1 + depth(n - 1); return { body: String(depth(400)) }; }',
    request,
  );
  assert.equal(result, { body: '400' });
});

test('a memory bomb is refused with a memory ScriptError; the scope starts over afterwards', async () => {
  const s = scope();
  await host.inject(s, 'function (config) { config.state.kept = 1; return {}; }', request);
  const err = await failure(
    host.inject(s, 'function (config) { config.state.hog = []; while (true) config.state.hog.push(new Array(100000).fill(1)); }', request, {
      timeoutMs: 60000,
    }),
  );
  assert.instance(err, ScriptError);
  assert.is((err as ScriptError).kind, 'memory');
  assert.equal(await host.inject(s, 'function (config) { return { body: String(config.state.kept) }; }', request), { body: 'undefined' });
});

test('a bomb of small objects is refused as out of memory too', async () => {
  const err = await failure(
    host.inject(scope(), 'function () { const all = []; let i = 0; while (true) all.push({ i: i++ }); }', request, { timeoutMs: 60000 }),
  );
  assert.instance(err, ScriptError);
  assert.is((err as ScriptError).kind, 'memory');
});

test('a worker that grew past its memory bound is replaced once idle (its scopes start afresh); a result over the body cap stays in the sandbox', async () => {
  const warnings: string[] = [];
  const own = createJsScriptHost({ log: Object.assign(Object.create(log) as Logger, { warn: (m: string) => warnings.push(m) }), workers: 1 });
  const count = 'function (config) { config.state.n = (config.state.n || 0) + 1; return { body: String(config.state.n) }; }';
  assert.equal(await own.inject(1, count, request), { body: '1' });
  assert.equal(await own.inject(1, count, request), { body: '2' });
  // 80 MiB of characters held while the call runs: the wasm heap grows and never shrinks.
  const big = await own.inject(1, `function () { const s = 'x'.repeat(${80 * 1024 * 1024}); return { body: String(s.length) }; }`, request, {
    timeoutMs: 60000,
  });
  assert.equal(big, { body: String(80 * 1024 * 1024) });
  // The replacement follows the answer; the next call meets a fresh worker.
  for (let tries = 0; warnings.length === 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.match(warnings.join('\n'), /memory grew past its bound; replacing it/);
  assert.equal(await own.inject(1, count, request), { body: '1' });
  const tooLarge = await failure(own.inject(2, `function () { return { body: 'y'.repeat(${65 * 1024 * 1024}) }; }`, request, { timeoutMs: 60000 }));
  await own.close();
  assert.instance(tooLarge, ScriptError);
  assert.is((tooLarge as ScriptError).kind, 'too-large');
  assert.match(tooLarge.message, /over the 67108864-byte response body cap/);
});

test('a thrown null is a plain runtime error while memory is fine', async () => {
  const own = createJsScriptHost({ log, workers: 1 });
  const err = await failure(own.inject(1, 'function () { throw null; }', request));
  await own.close();
  assert.instance(err, ScriptError);
  assert.is((err as ScriptError).kind, 'runtime');
  assert.is(err.message, 'null');
});

test('the loop bound stops a runaway loop that the deadline would allow', async () => {
  const err = await failure(host.inject(scope(), 'function () { for (;;) {} }', request, { timeoutMs: 60000 }));
  assert.instance(err, ScriptError);
  assert.is((err as ScriptError).kind, 'loop-bound');
});

test('the sandbox has no process, require, module loader, timers or network', async () => {
  const result = await host.inject(
    scope(),
    `function () {
    return { body: [typeof process, typeof require, typeof module, typeof setTimeout, typeof fetch, typeof XMLHttpRequest, typeof std, typeof os].join(',') };
  }`,
    request,
  );
  assert.equal(result, { body: 'undefined,undefined,undefined,undefined,undefined,undefined,undefined,undefined' });
  const importErr = await failure(
    host.inject(scope(), 'async function () { const fs = await import("fs"); return { body: typeof fs.readFileSync }; }', request),
  );
  assert.instance(importErr, ScriptError);
  const escapeErr = await failure(host.inject(scope(), 'function () { return { body: this.constructor.constructor("return process")().pid }; }', request));
  assert.instance(escapeErr, ScriptError);
});

test('a worker stuck past its deadline in native code is replaced; callers are released on time', async () => {
  const s = scope();
  const started = performance.now();
  const err = await failure(
    host.inject(s, 'function () { const a = []; for (let i = 0; i < 200000; i++) a.push("k" + i); for (;;) a.sort(); }', request, { timeoutMs: 300 }),
  );
  assert.instance(err, ScriptTimeoutError);
  // Released at the deadline rather than after the stuck worker; wide for late timers under load.
  assert.ok(performance.now() - started < 4000, `released after ${Math.round(performance.now() - started)} ms`);
  assert.equal(await host.inject(s, 'function () { return { body: "fresh worker" }; }', request), { body: 'fresh worker' });
});

test('close fails pending and later calls with ScriptError', async () => {
  const own = createJsScriptHost({ log, workers: 1 });
  const pending = failure(own.inject(1, 'function () { while (true) { JSON.stringify(new Array(1000).fill(1)); } }', request, { timeoutMs: 5000 }));
  await new Promise((resolve) => setTimeout(resolve, 50));
  await own.close();
  assert.instance(await pending, ScriptError);
  assert.instance(await failure(own.inject(1, 'function () { return {}; }', request)), ScriptError);
});

test.run();

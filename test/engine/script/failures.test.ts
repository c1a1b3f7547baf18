import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, startInProcess, call } from '../../support/in-process.js';
import { inFlight } from '../../support/in-flight.js';

const svc = inProcessForSuite(test, { allowInjection: true, keepImposters: true });

const script = (code: string, engine = 'rhai') => ({ _svc: { script: { engine, code } } });

test('a compile error is a 400 at create naming line:col', async () => {
  const res = await svc.admin('POST', '/imposters', { protocol: 'http', stubs: [{ responses: [script('let x = ;\nhttp(200)')] }] });
  assert.is(res.status, 400);
  assert.is(res.json.errors[0].code, 'bad data');
  assert.match(res.json.errors[0].message, /line 1:9/);
});

test('a javascript syntax error is a 400 at create naming line:col', async () => {
  const res = await svc.admin('POST', '/imposters', { protocol: 'http', stubs: [{ responses: [script('return 1;\nlet x = ;', 'js')] }] });
  assert.is(res.status, 400);
  assert.match(res.json.errors[0].message, /line 2:9/);
});

test('javascript: a runtime error is a 500 and an endless loop a 504, both marked', async () => {
  // A deadline no cold sandbox start can reach: the runtime error is never turned into a timeout.
  const throwing = await svc.createImposter({
    _svc: { scriptEngine: { timeoutMs: 60000 } },
    stubs: [{ responses: [script('throw new Error("boom");', 'javascript')] }],
  });
  const boom = await call(throwing, 'GET', '/boom');
  assert.is(boom.status, 500);
  assert.is(boom.headers['x-svc-script-error'], 'true');
  assert.match(boom.body, /boom/);
  const spinning = await svc.createImposter({
    _svc: { scriptEngine: { timeoutMs: 4000 } },
    stubs: [
      { predicates: [{ equals: { path: '/warm' } }], responses: [script('throw new Error("warm");', 'javascript')] },
      // Slow iterations: the deadline comes long before the sandbox's loop-iteration bound (a 500).
      { responses: [script('for (;;) { JSON.stringify(new Array(1000).fill(1)); }', 'javascript')] },
    ],
  });
  // Warm the sandbox first so the deadline below measures the loop, not a worker's cold start.
  await call(spinning, 'GET', '/warm');
  const spin = await call(spinning, 'GET', '/spin');
  assert.is(spin.status, 504);
  assert.is(spin.headers['x-svc-script-timeout'], 'true');
  assert.is(spin.headers['x-svc-script-error'], 'true');
});

test('a runtime error is a 500 envelope with x-svc-script-error', async () => {
  const port = await svc.createImposter({ stubs: [{ responses: [script('throw "boom"')] }] });
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 500);
  assert.is(res.headers['x-svc-script-error'], 'true');
  assert.is(res.headers['x-svc-script-timeout'], undefined);
  const body = JSON.parse(res.body);
  assert.is(body.errors[0].type, 'script_error');
  assert.match(body.errors[0].message, /boom/);
});

test('a result that is not a constructor is a script error', async () => {
  const port = await svc.createImposter({ stubs: [{ responses: [script('42')] }] });
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 500);
  assert.is(res.headers['x-svc-script-error'], 'true');
});

test('loop {} answers 504 with both headers while another imposter keeps answering', async () => {
  const looping = await svc.createImposter({
    // Long enough that a loaded machine still fits three answers from the other imposter in it.
    _svc: { scriptEngine: { timeoutMs: 5000 } },
    stubs: [{ responses: [script('loop {}')] }],
  });
  const other = await svc.createImposter({ stubs: [{ responses: [{ is: { body: 'still here' } }] }] });
  let spinning = true;
  const slow = inFlight(call(looping, 'GET', '/')).finally(() => {
    spinning = false;
  });
  // While the script spins, the other imposter answers (the loop runs on a worker thread).
  let answered = 0;
  while (spinning && answered < 3) {
    const res = await call(other, 'GET', '/');
    assert.is(res.body, 'still here');
    if (spinning) answered += 1;
  }
  const res = await slow;
  assert.ok(answered >= 3, `other imposter answered ${answered} times during the loop`);
  assert.is(res.status, 504);
  assert.is(res.headers['x-svc-script-error'], 'true');
  assert.is(res.headers['x-svc-script-timeout'], 'true');
  assert.is(JSON.parse(res.body).errors[0].type, 'script_timeout');
});

test('debug matching runs predicate scripts: a looping one answers 504 "Debug matching timed out", a matching one reports _svc', async () => {
  const port = await svc.createImposter({
    // The loop never ends, so the outcome does not depend on speed; the margin covers a worker restart for /yes.
    _svc: { scriptEngine: { timeoutMs: 5000 } },
    stubs: [
      { predicates: [{ equals: { path: '/loop' } }, { _svc: { script: { code: 'loop {}' } } }], responses: [{ is: {} }] },
      { predicates: [{ _svc: { script: { code: 'ctx.request.path == "/yes"' } } }], responses: [script('http(200)')] },
    ],
  });
  const debug = { headers: { 'X-Svc-Debug': 'true' } };
  const loop = await call(port, 'GET', '/loop', debug);
  assert.is(loop.status, 504);
  assert.is(JSON.parse(loop.body).errors[0].message, 'Debug matching timed out');
  const yes = await call(port, 'GET', '/yes', debug);
  assert.is(yes.status, 200);
  const report = JSON.parse(yes.body);
  assert.is(report.matchResult.stubIndex, 1);
  assert.is(report.matchResult.responsePreview.responseType, '_svc');
});

test('without --allowInjection a script is 400 invalid injection', async () => {
  const locked = await startInProcess({ allowInjection: false });
  try {
    for (const stub of [
      { responses: [script('http(200)')] },
      { predicates: [{ _svc: { script: { code: 'true' } } }], responses: [{ is: {} }] },
      { responses: [{ is: {}, _behaviors: { wait: { _svc: { script: { code: '1' } } } } }] },
      { responses: [{ is: {}, _behaviors: { decorate: { _svc: { script: { code: 'pass()' } } } } }] },
    ]) {
      const res = await locked.admin('POST', '/imposters', { protocol: 'http', stubs: [stub] });
      assert.is(res.status, 400, JSON.stringify(stub));
      assert.is(res.json.errors[0].code, 'invalid injection');
    }
  } finally {
    await locked.stop();
  }
});

test('_svc.scriptEngine.timeoutMs of -1, 0 or "abc" is a 400 naming the field', async () => {
  for (const timeoutMs of [-1, 0, 'abc', Number.MAX_SAFE_INTEGER * 2]) {
    const res = await svc.admin('POST', '/imposters', { protocol: 'http', _svc: { scriptEngine: { timeoutMs } }, stubs: [] });
    assert.is(res.status, 400, `timeoutMs ${JSON.stringify(timeoutMs)}`);
    assert.is(res.json.errors[0].type, 'bad_data');
    assert.match(res.json.errors[0].message, /'_svc\.scriptEngine\.timeoutMs' must be a positive/);
  }
  const fine = await svc.admin('POST', '/imposters', { protocol: 'http', _svc: { scriptEngine: { timeoutMs: 250 } } });
  assert.is(fine.status, 201);
  await svc.admin('DELETE', `/imposters/${fine.json.port}`);
});

test.run();

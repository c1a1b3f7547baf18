/**
 * A sandbox worker's cold start is not the script's time (docs/scripts.md, the deadline): a call the
 * main thread makes while its worker starts gets its whole deadline once the worker is ready. The start
 * is made slow on purpose with the test-only hook SVC_TEST_THREAD_SLOW_START=sandbox:MS (the first
 * sandbox thread says ready MS later).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../../support/in-process.js';

const test = suite('javascript sandbox: a cold start is not counted in the deadline');
const START_DELAY_MS = 4_000;

// Before the server starts (this hook is registered first), and gone for every other suite.
test.before(() => {
  process.env.SVC_TEST_THREAD_SLOW_START = `sandbox:${START_DELAY_MS}`;
});
const svc = inProcessForSuite(test, { allowInjection: true, keepImposters: true });
test.after(() => {
  delete process.env.SVC_TEST_THREAD_SLOW_START;
});

test('a 2 s deadline holds for the script, not for a start twice as long', async () => {
  // Before the imposter: its creation may already start the worker.
  const started = Date.now();
  const port = await svc.createImposter({
    _svc: { scriptEngine: { timeoutMs: 2000 } },
    stubs: [
      { predicates: [{ equals: { path: '/spin' } }], responses: [{ inject: '() => { for (;;) { JSON.stringify(new Array(1000).fill(1)); } }' }] },
      { responses: [{ inject: '(config) => { config.state.n = (config.state.n || 0) + 1; return { body: String(config.state.n) }; }' }] },
    ],
  });
  const first = await call(port, 'GET', '/');
  assert.is(first.status, 200, first.body);
  assert.is(first.body, '1');
  assert.ok(Date.now() - started >= START_DELAY_MS, 'the answer waited for the worker to start');
  assert.is((await call(port, 'GET', '/')).body, '2');
  // The deadline itself still holds once the worker runs (slow iterations: the deadline comes long before the loop bound).
  const spun = await call(port, 'GET', '/spin');
  assert.is(spun.status, 504, spun.body);
  assert.match(spun.body, /2000 ms deadline/);
});

test.run();

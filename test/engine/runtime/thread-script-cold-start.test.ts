/**
 * Issue 18 (scripts): an engine thread's call to a sandbox worker that is still starting gets its whole
 * deadline once the worker serves (engine/script/shared/worker-links.ts), as main's own calls do
 * (test/engine/script/js/cold-start.test.ts). The worker's start is made slow on purpose with the
 * test-only hook SVC_TEST_THREAD_SLOW_START=sandbox:MS (the first sandbox thread is blocked MS before
 * it says ready), and this (the main) thread is blocked while the request is made, so only the engine
 * thread can answer it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../support/servers.js';
import { askWhileMainBlocked, startPerCore, type PerCoreServer } from '../../support/per-core.js';

const test = suite<{ svc: PerCoreServer }>('runtime per-core: a script worker cold start is not counted in an engine thread call');
const START_DELAY_MS = 3_000;
const TIMEOUT_MS = 1_000;

// Read when the sandbox worker is spawned (with the first imposter that scripts): set for the whole suite.
test.before(async (context) => {
  process.env.SVC_TEST_THREAD_SLOW_START = `sandbox:${START_DELAY_MS}`;
  context.svc = await startPerCore(['--allowInjection']);
});

test.after(async (context) => {
  delete process.env.SVC_TEST_THREAD_SLOW_START;
  await context.svc.server.shutdown();
});

test('an inject called on the engine thread while its worker starts gets its 1 s deadline after the start', async ({ svc }) => {
  const started = Date.now();
  const port = await freePort();
  const created = await svc.admin('POST', '/imposters', {
    port,
    protocol: 'http',
    _svc: { scriptEngine: { timeoutMs: TIMEOUT_MS } },
    stubs: [{ responses: [{ inject: '(config) => { config.state.n = (config.state.n || 0) + 1; return { body: String(config.state.n) }; }' }] }],
  });
  assert.is(created.status, 201, JSON.stringify(created.json));
  const [first, second] = askWhileMainBlocked(port, [{ path: '/' }, { path: '/' }]);
  assert.is(first?.status, 200, first?.error ?? Buffer.from(first?.body ?? '', 'base64').toString());
  assert.is(Buffer.from(first!.body!, 'base64').toString(), '1');
  assert.ok(Date.now() - started >= START_DELAY_MS, 'the answer waited for the worker to start');
  assert.is(Buffer.from(second!.body!, 'base64').toString(), '2');
});

test.run();

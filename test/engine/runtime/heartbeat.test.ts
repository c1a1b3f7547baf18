/**
 * The heartbeat of the one worker-thread host on engine threads (issue 18): an engine thread that hangs
 * (a loop no deadline reaches) is found, logged at error level, terminated and restarted, and serves
 * again. Script workers get the same host, but a hung script run is already ended by its deadline, so
 * the hang is made here with the test-only hook SVC_TEST_THREAD_SPIN=engine (the first engine thread
 * spins forever once ready; read by engine/threads only when set, and set only by this test).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../support/servers.js';
import { acceptedBySlot, fresh, startPerCore, until, type PerCoreServer } from '../../support/per-core.js';

const test = suite<{ svc: PerCoreServer }>('runtime per-core heartbeat');

test.before(async (context) => {
  context.svc = await startPerCore();
});

test.after(async (context) => {
  await context.svc.server.shutdown();
});

test('a hung engine thread is terminated by the heartbeat, logged at error level, restarted, and serves again', async ({ svc }) => {
  const port = await freePort();
  // Engine threads start with the first listener: the hook is set while it is created.
  process.env.SVC_TEST_THREAD_SPIN = 'engine';
  try {
    const created = await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs: [{ responses: [{ is: { body: 'up' } }] }] });
    assert.is(created.status, 201);
  } finally {
    delete process.env.SVC_TEST_THREAD_SPIN;
  }
  // The main thread answers meanwhile. The thread starts spinning 20 ms after it is ready (engine/threads/hosted.ts):
  // on a busy box it may still accept this connection first, which is then reset when the heartbeat ends the thread.
  assert.ok(['up', 'ECONNRESET'].includes(await fresh(port)));
  await until(
    async () =>
      svc.log
        .recent()
        .some((e) => e.level === 'error' && /engine thread 1 stopped answering \(no heartbeat for \d+ ms\); terminated; restarting it/.test(e.message)),
    'the heartbeat log line',
    1200,
  );
  const before = (await acceptedBySlot(svc.metricsPort)).get('1') ?? 0;
  await until(async () => {
    assert.is(await fresh(port), 'up');
    return ((await acceptedBySlot(svc.metricsPort)).get('1') ?? 0) > before;
  }, 'the restarted thread to accept');
  for (let i = 0; i < 20; i += 1) assert.is(await fresh(port), 'up');
  assert.is((await svc.admin('DELETE', `/imposters/${port}`)).status, 200);
});

test.run();

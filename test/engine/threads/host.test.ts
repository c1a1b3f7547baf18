/**
 * The one worker-thread host (engine/threads): per-turn batching, ready, restart with backoff after a
 * crash (giving up after repeated quick deaths), and the heartbeat that replaces a hung thread.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ThreadHost, workerSpawner, type ThreadHostOptions } from '../../../engine/threads/index.js';

const test = suite('thread host');

interface Watched {
  host: ThreadHost<string>;
  received: unknown[];
  logs: string[];
  lost: string[];
  readies: number;
  gaveUp: boolean;
}

function host(fixture: string, extra: Partial<ThreadHostOptions<string>> = {}): Watched {
  const watched: Watched = { received: [], logs: [], lost: [], readies: 0, gaveUp: false } as unknown as Watched;
  watched.host = new ThreadHost<string>({
    name: `test thread (${fixture})`,
    kind: 'test',
    spawn: workerSpawner(import.meta.url, `../../support/fixtures/threads/${fixture}`),
    log: (message) => watched.logs.push(message),
    receive: (message) => watched.received.push(message),
    onReady: () => (watched.readies += 1),
    onLost: (reason) => watched.lost.push(reason),
    onGiveUp: () => (watched.gaveUp = true),
    ...extra,
  });
  return watched;
}

async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('messages posted in one task go as one batch; the thread says when it is ready', async () => {
  const w = host('echo');
  try {
    w.host.post('a');
    w.host.post('b');
    w.host.post('c');
    await until(() => w.received.length > 0, 'the answer');
    assert.equal(w.received, [['a', 'b', 'c']]);
    await until(() => w.readies === 1, 'ready');
    assert.ok(w.host.ready);
  } finally {
    await w.host.stop();
  }
});

test('a thread that exits is logged and restarted; a new generation serves', async () => {
  const w = host('echo');
  try {
    await until(() => w.host.ready, 'ready');
    const generation = w.host.generation;
    w.host.post('exit');
    await until(() => w.lost.length === 1, 'the loss');
    assert.match(w.lost[0], /exited \(code 3\)/);
    assert.match(w.logs[0], /^test thread \(echo\) exited \(code 3\); restarting it/);
    assert.is(w.host.generation, generation + 1);
    w.host.post('again');
    await until(() => w.received.length > 0, 'the new thread to answer');
    assert.equal(w.received, [['again']]);
  } finally {
    await w.host.stop();
  }
});

test('a thread that keeps dying at start is restarted with backoff, then given up', async () => {
  const w = host('crash');
  try {
    await until(() => w.gaveUp, 'giving up');
    assert.is(w.lost.length, 3);
    assert.match(w.logs[0], /exited \(code 7\); restarting it in 100 ms$/);
    assert.match(w.logs[1], /exited \(code 7\); restarting it in 200 ms$/);
    assert.match(w.logs[2], /exited \(code 7\); it keeps dying at start: not restarted$/);
    assert.ok(w.host.down);
    assert.is(w.host.worker, undefined);
    w.host.post('ignored');
    assert.is(w.host.worker, undefined, 'a post does not start it again');
  } finally {
    await w.host.stop();
  }
});

test('a restart node cannot spawn (no threads left) is a death at start: logged, retried with backoff, never thrown', async () => {
  const spawn = workerSpawner(import.meta.url, '../../support/fixtures/threads/echo');
  let spawns = 0;
  const w = host('echo', {
    spawn: (options) => {
      spawns += 1;
      if (spawns === 2) throw Object.assign(new Error('no threads left'), { code: 'ERR_WORKER_INIT_FAILED' });
      return spawn(options);
    },
  });
  try {
    await until(() => w.host.ready, 'ready');
    // The restart after this exit runs inside the worker's 'exit' listener: a throw there would end the process.
    w.host.post('exit');
    await until(() => w.lost.length === 2, 'the exit and the failed start');
    assert.match(w.lost[1], /^could not start \(no threads left\)$/);
    assert.match(w.logs[1], /^test thread \(echo\) could not start \(no threads left\); restarting it in \d+ ms$/);
    w.host.post('again');
    await until(() => w.received.length > 0, 'the thread started on the next try to answer');
    assert.equal(w.received, [['again']]);
    assert.is(spawns, 3);
  } finally {
    await w.host.stop();
  }
});

test('a hung thread (a loop no deadline reaches) is found by the heartbeat, terminated and restarted', async () => {
  const w = host('echo', { heartbeat: { intervalMs: 50, timeoutMs: 500 } });
  try {
    await until(() => w.host.ready, 'ready');
    const hung = w.host.worker!;
    const exited = new Promise((resolve) => hung.once('exit', resolve));
    w.host.post('spin');
    await until(() => w.lost.length === 1, 'the heartbeat to notice');
    assert.match(w.lost[0], /^stopped answering \(no heartbeat for \d+ ms\); terminated$/);
    assert.match(w.logs[0], /^test thread \(echo\) stopped answering .*; restarting it/);
    await exited;
    w.host.post('after');
    await until(() => w.received.length > 0, 'the new thread to answer');
    assert.equal(w.received, [['after']]);
    assert.ok(w.host.worker !== hung);
  } finally {
    await w.host.stop();
  }
});

test('silence the owner expects (a script running to its deadline) is not a hang', async () => {
  let quietUntil = 0;
  const w = host('echo', { heartbeat: { intervalMs: 50, timeoutMs: 300 }, quietUntil: () => quietUntil });
  try {
    await until(() => w.host.ready, 'ready');
    quietUntil = Date.now() + 60_000;
    w.host.post('spin');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(w.lost, [], 'not terminated while quiet is expected');
    quietUntil = Date.now();
    await until(() => w.lost.length === 1, 'the heartbeat once the quiet time is over');
  } finally {
    await w.host.stop();
  }
});

test.run();

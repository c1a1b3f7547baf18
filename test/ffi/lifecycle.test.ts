/** The engine host's lifecycle under a C program: death, hangs, orphans, start failures, default location. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { join } from 'node:path';
import { freePort } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';
import { AbiRun, childrenOf, lazyAbiProgram } from '../support/abi-program.js';

const temp = tempDirForSuite(test, 'svc-ffi-life-');
const abiProgram = lazyAbiProgram(temp);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a dead engine host turns every call into its sentinel, never a crash', async () => {
  const run = new AbiRun(abiProgram(), ['death']);
  try {
    assert.ok(Number(await run.next('create_imposter')) > 0);
    await run.pause('kill-host');
    const hosts = childrenOf(run.child.pid!);
    assert.is(hosts.length, 1, 'one engine host per handle');
    process.kill(hosts[0], 'SIGKILL');
    run.resume();
    assert.match(await run.sentinel('get_imposter_after_death'), /engine host (killed by signal 9|connection lost)/);
    assert.is(await run.next('create_after_death'), '0');
    assert.match(await run.sentinel('create_after_death_error'), /engine host/);
    assert.match(await run.sentinel('delete_all_after_death'), /engine host/);
    assert.is(await run.next('survived'), '0');
    assert.is(await run.finish(), 0);
  } finally {
    await run.kill();
  }
});

test('the engine host ends when the calling program dies (no orphan)', async () => {
  const run = new AbiRun(abiProgram(), ['death']);
  try {
    assert.ok(Number(await run.next('create_imposter')) > 0);
    await run.pause('kill-host');
    const [host] = childrenOf(run.child.pid!);
    assert.ok(host, 'the engine host runs');
    await run.kill();
    const deadline = Date.now() + 10000;
    while (isAlive(host) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.not.ok(isAlive(host), 'the host saw its stdin end and exited');
  } finally {
    await run.kill();
  }
});

test('svc_stop is prompt although clients hold idle or half-closed sockets on the admin, metrics and imposter ports', async () => {
  const imposterPort = await freePort();
  const options = { port: await freePort(), metricsPort: await freePort(), config: { imposters: [{ port: imposterPort, protocol: 'http' }] } };
  const run = new AbiRun(abiProgram(), ['serve', JSON.stringify(options)]);
  const sockets: net.Socket[] = [];
  try {
    await run.json('serve_admin');
    await run.json('list_imposters');
    await run.pause('serving');
    for (const port of [options.port, options.metricsPort, imposterPort]) {
      for (const send of [null, '', 'PRI * HTTP/2.0\r\n']) {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('error', () => {});
        await new Promise((resolve) => socket.once('connect', resolve));
        // null: connected and silent; a string: sent, then half-closed (a TCP health probe).
        if (send !== null) socket.end(send);
        sockets.push(socket);
      }
    }
    const started = Date.now();
    run.resume();
    assert.is(await run.next('stopped', 20_000), '0');
    // The host's stop grace is 5 s, after which svc_stop kills it; a clean stop takes a fraction of that.
    const took = Date.now() - started;
    assert.ok(took < 4000, `svc_stop took ${took} ms`);
    assert.is(await run.finish(), 0);
  } finally {
    for (const socket of sockets) socket.destroy();
    await run.kill();
  }
});

test('svc_start without the engine host script is NULL with a last error naming it', async () => {
  const run = new AbiRun(abiProgram(), ['threads'], { ...process.env, SVC_FFI_HOST: join(temp.path, 'missing.js') });
  try {
    assert.match(await run.sentinel('start'), /svc_start: engine host script .*missing\.js: No such file/);
    assert.is(await run.exited, 2);
  } finally {
    await run.kill();
  }
});

test('svc_start without a usable node is NULL with a last error', async () => {
  const run = new AbiRun(abiProgram(), ['threads'], { ...process.env, SVC_FFI_NODE: '/nonexistent/node' });
  try {
    assert.match(await run.sentinel('start'), /svc_start: cannot start the engine host .*No such file/);
    assert.is(await run.exited, 2);
  } finally {
    await run.kill();
  }
});

test('the library finds the built engine host next to it (dist/ffi/host) by default', async () => {
  const env = { ...process.env };
  delete env.SVC_FFI_HOST;
  const run = new AbiRun(abiProgram(), ['threads'], env);
  try {
    assert.is(await run.next('thread_good'), 'ok=200 errors_right=200');
    assert.is(await run.next('thread_failing'), 'ok=0 errors_right=200');
  } finally {
    await run.kill();
  }
});

test('svc_stop comes back from a host that no longer answers, and kills it', async () => {
  const run = new AbiRun(abiProgram(), ['hang']);
  try {
    assert.ok(Number(await run.next('create_imposter')) > 0);
    await run.pause('freeze-host');
    const [host] = childrenOf(run.child.pid!);
    process.kill(host, 'SIGSTOP');
    run.resume();
    const seconds = Number(await run.next('stop_seconds', 30000));
    assert.ok(seconds < 20, `svc_stop took ${seconds} s`);
    assert.not.ok(isAlive(host), 'the frozen host was killed and reaped');
    assert.is(await run.finish(), 0);
  } finally {
    await run.kill();
  }
});

test.run();

/**
 * Issue 10 must-show 4: under `ulimit -n 1024`, 5,000 connect+close on an imposter and on the admin
 * port leave the server's open fd count at its baseline, and the server answers throughout. Runs the
 * built CLI (dist/, as `npm test` builds first) so /proc/<pid>/fd is the server's alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http, repoRoot } from '../../support/servers.js';

const test = suite('fd count under connect+close probes');
const PROBES = 5000;
const AT_ONCE = 50;
/** Probes between two checks that the server still answers. */
const CHECK_EVERY = 500;
/** Sockets the server may still be closing when the count is read (the peer just sent its FIN). */
const FD_MARGIN = 10;
/** The issue asks for the baseline within 1 s; polled five times as long for a busy machine. */
const SETTLE_MS = 5000;

let child: ChildProcess | undefined;
test.after(async () => {
  if (child?.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
});

function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function connectAndClose(port: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.destroy());
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
}

async function settledFds(pid: number, baseline: number): Promise<number> {
  const until = Date.now() + SETTLE_MS;
  let count = fdCount(pid);
  while (count > baseline + FD_MARGIN && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    count = fdCount(pid);
  }
  return count;
}

test('5,000 connect+close on an imposter and on the admin port: fds back at baseline, answers throughout', async () => {
  const adminPort = await freePort();
  const metricsPort = await freePort();
  const imposterPort = await freePort();
  child = spawn(
    'bash',
    ['-c', `ulimit -n 1024; exec "${process.execPath}" dist/tools/svc.js start --port ${adminPort} --metrics-port ${metricsPort} --nologfile --loglevel error`],
    {
      cwd: repoRoot,
      stdio: 'ignore',
    },
  );
  const pid = child.pid as number;
  let up = false;
  for (let tries = 0; tries < 200 && !up; tries++) {
    up = await http('GET', `http://127.0.0.1:${adminPort}/health`, { timeoutMs: 1000 }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (!up) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(up, 'svc did not start');
  const created = await http('POST', `http://127.0.0.1:${adminPort}/imposters`, {
    body: JSON.stringify({ protocol: 'http', port: imposterPort, stubs: [{ responses: [{ is: { body: 'alive' } }] }] }),
  });
  assert.is(created.status, 201);
  assert.is((await http('GET', `http://127.0.0.1:${imposterPort}/`)).body, 'alive');
  const baseline = fdCount(pid);

  for (const [plane, port] of [
    ['imposter', imposterPort],
    ['admin', adminPort],
  ] as const) {
    for (let done = 0; done < PROBES; done += AT_ONCE) {
      await Promise.all(Array.from({ length: AT_ONCE }, () => connectAndClose(port)));
      if ((done + AT_ONCE) % CHECK_EVERY === 0) {
        const health = await http('GET', `http://127.0.0.1:${adminPort}/health`, { timeoutMs: 60_000 });
        assert.is(health.status, 200, `${plane}: /health after ${done + AT_ONCE} probes`);
        const answer = await http('GET', `http://127.0.0.1:${imposterPort}/`, { timeoutMs: 60_000 });
        assert.is(answer.body, 'alive', `${plane}: imposter after ${done + AT_ONCE} probes`);
      }
    }
    const count = await settledFds(pid, baseline);
    assert.ok(count <= baseline + FD_MARGIN, `${plane}: ${count} fds open after the probes, baseline ${baseline}`);
  }
});

test.run();

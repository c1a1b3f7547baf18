/**
 * A server whose stdout/stderr reader went away (a test runner killed, `svc start | head -1`) still
 * stops on SIGTERM. It used to spin: the EPIPE of a log line became an uncaught exception, whose own
 * log line hit the same pipe again, forever, starving the signal handler.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, http, repoRoot } from '../../support/servers.js';
import { svcCommand } from '../../support/run-svc.js';

test('SIGTERM stops a server whose output pipes are closed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-broken-pipe-'));
  const [command, ...prefix] = svcCommand;
  const port = await freePort();
  const args = ['start', '--port', String(port), '--metrics-port', String(await freePort()), '--nologfile', '--pidfile', join(dir, 'svc.pid')];
  const child = spawn(command, [...prefix, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  // A hang detector, not a timing bound: a healthy server exits in well under a second.
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('now taking orders')) resolve();
      });
      child.once('exit', () => reject(new Error(`svc exited before serving: ${out}`)));
    });
    // Answering HTTP means start-up has run to its end, signal handlers included.
    assert.is((await http('GET', `http://127.0.0.1:${port}/health`)).status, 200);
    child.stdout.destroy();
    child.stderr.destroy();
    child.kill('SIGTERM');
    const { code, signal } = await exited;
    assert.is(signal, null, 'stopped by its own SIGTERM handler, not killed by the hang detector');
    assert.is(code, 0);
  } finally {
    clearTimeout(killer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

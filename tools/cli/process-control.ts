import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliOptions } from './options.js';
import { processAlive, readPidFile } from './pidfile.js';

const STOP_GRACE_MS = 10_000;
const START_TIMEOUT_MS = 30_000;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * `svc stop`: SIGTERM to the pidfile's PID, wait for it to exit, remove the file. A missing file, or one
 * naming a process that no longer exists, is success.
 */
export async function stopCommand(options: CliOptions): Promise<number> {
  const path = options.pidFile;
  if (!existsSync(path)) return 0;
  const pid = readPidFile(path);
  if (pid === undefined || !processAlive(pid)) {
    rmSync(path, { force: true });
    return 0;
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    process.stderr.write(`svc stop: cannot signal process ${pid}: ${(err as Error).message}\n`);
    return 1;
  }
  const deadline = Date.now() + STOP_GRACE_MS;
  while (processAlive(pid) && Date.now() < deadline) await sleep(50);
  if (processAlive(pid)) {
    process.stderr.write(`svc stop: process ${pid} ignored SIGTERM for ${STOP_GRACE_MS / 1000}s; sending SIGKILL\n`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // it exited in the meantime
    }
  }
  if (readPidFile(path) === pid) rmSync(path, { force: true });
  return 0;
}

/**
 * `svc restart [start options]`: stop (a missing pidfile is fine), then start a detached server with the
 * same options and return once it has written its pidfile, i.e. once it is serving.
 */
export async function restartCommand(options: CliOptions, startArgs: string[]): Promise<number> {
  const stopped = await stopCommand(options);
  if (stopped !== 0) return stopped;
  const scratch = mkdtempSync(join(tmpdir(), 'svc-restart-'));
  const errorsFile = join(scratch, 'stderr');
  const errFd = openSync(errorsFile, 'w');
  const [script] = process.argv.slice(1);
  const child = spawn(process.execPath, [...process.execArgv, script, 'start', ...startArgs], {
    detached: true,
    stdio: ['ignore', 'ignore', errFd],
  });
  closeSync(errFd);
  let exitCode: number | null | undefined;
  child.once('exit', (code, signal) => { exitCode = code ?? (signal ? 1 : 0); });
  child.once('error', () => { exitCode = 1; });
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (exitCode === undefined && Date.now() < deadline) {
      if (readPidFile(options.pidFile) === child.pid) return 0;
      await sleep(50);
    }
    const reason = exitCode === undefined ? `did not start within ${START_TIMEOUT_MS / 1000}s` : `exited with status ${exitCode}`;
    process.stderr.write(`svc restart: the server ${reason}\n${readFileSync(errorsFile, 'utf8')}`);
    if (exitCode === undefined) child.kill('SIGKILL');
    return 1;
  } finally {
    child.unref();
    rmSync(scratch, { recursive: true, force: true });
  }
}

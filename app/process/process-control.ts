import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PIDFILE, type CliOptions } from './server-options.js';
import { processAlive, readPidFile } from './pidfile.js';
import { errorText } from '../../engine/model/index.js';

const STOP_GRACE_MS = 10_000;
const START_TIMEOUT_MS = 30_000;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Stops the server named in the pidfile (SIGTERM, then SIGKILL after a grace period; `warn` hears
 * about the SIGKILL) and removes the file. A missing file, or one naming a process that no longer
 * exists, is success. A signal the OS refuses throws and keeps the file.
 */
export async function stopServer(pidFile: string = DEFAULT_PIDFILE, warn: (message: string) => void = () => {}): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = readPidFile(pidFile);
  if (pid === undefined || !processAlive(pid)) {
    rmSync(pidFile, { force: true });
    return;
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    throw new Error(`cannot signal process ${pid}: ${errorText(err)}`);
  }
  const deadline = Date.now() + STOP_GRACE_MS;
  while (processAlive(pid) && Date.now() < deadline) await sleep(50);
  if (processAlive(pid)) {
    warn(`process ${pid} ignored SIGTERM for ${STOP_GRACE_MS / 1000}s; sending SIGKILL`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // it exited in the meantime
    }
  }
  if (readPidFile(pidFile) === pid) rmSync(pidFile, { force: true });
}

/** The stop half of a restart: like `stopServer`, where no running server (or no pidfile) is the usual case. */
export function stopForRestart(pidFile: string = DEFAULT_PIDFILE, warn?: (message: string) => void): Promise<void> {
  return stopServer(pidFile, warn);
}

/** `svc stop`: `stopServer` on the `--pidfile`; exit 1 when the process cannot be signalled. */
export async function stopCommand(options: CliOptions): Promise<number> {
  const warn = (message: string) => process.stderr.write(`svc stop: ${message}\n`);
  try {
    await stopServer(options.pidFile, warn);
  } catch (err) {
    warn(errorText(err));
    return 1;
  }
  return 0;
}

/**
 * `svc restart [start options]`: stop (a missing pidfile is fine), then start a detached server with the
 * same options and return once it has written its pidfile, i.e. once it is serving.
 */
export async function restartCommand(options: CliOptions, startArgs: string[]): Promise<number> {
  try {
    await stopForRestart(options.pidFile, (message) => process.stderr.write(`svc restart: ${message}\n`));
  } catch (err) {
    process.stderr.write(`svc restart: ${errorText(err)}\n`);
    return 1;
  }
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
  child.once('exit', (code, signal) => {
    exitCode = code ?? (signal ? 1 : 0);
  });
  child.once('error', () => {
    exitCode = 1;
  });
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

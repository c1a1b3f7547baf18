/**
 * The CLI's process and snapshot commands (`svc stop | restart | save | replay | healthcheck`): each runs
 * one of app/process's operations, prints why it failed, and returns the exit status.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkHealth,
  DEFAULT_SAVEFILE,
  readPidFile,
  replayImposters,
  saveImposters,
  stopForRestart,
  stopServer,
  type CliOptions,
} from '../../app/process/index.js';
import { errorText } from '../../engine/model/index.js';

/** How long `restart` waits for the new server's pidfile. */
const START_TIMEOUT_MS = 30_000;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Exit status 0 when `operation` succeeds; else 1, with why on stderr. */
async function reported(command: string, operation: () => Promise<void>): Promise<number> {
  try {
    await operation();
    return 0;
  } catch (err) {
    process.stderr.write(`svc ${command}: ${errorText(err)}\n`);
    return 1;
  }
}

/** `svc stop`: `stopServer` on the `--pidfile`; exit 1 when the process cannot be signalled. */
export function stopCommand(options: CliOptions): Promise<number> {
  return reported('stop', () => stopServer(options.pidFile, (message) => process.stderr.write(`svc stop: ${message}\n`)));
}

/**
 * `svc restart [start options]`: stop (a missing pidfile is fine), then start a detached server with the
 * same options and return once it has written its pidfile, i.e. once it is serving.
 */
export async function restartCommand(options: CliOptions, startArgs: string[]): Promise<number> {
  const stopped = await reported('restart', () => stopForRestart(options.pidFile, (message) => process.stderr.write(`svc restart: ${message}\n`)));
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

/** `svc save [savefile]` (or `--savefile`): `saveImposters` to the file (default svc.json). */
export function saveCommand(options: CliOptions): Promise<number> {
  return reported('save', () => saveImposters(options, options.saveFile ?? options.positionals[0] ?? DEFAULT_SAVEFILE, options.removeProxies));
}

/** `svc replay`: puts back the replayable configuration without proxies (record mode becomes replay mode). */
export function replayCommand(options: CliOptions): Promise<number> {
  return reported('replay', () => replayImposters(options));
}

/** `svc healthcheck`: exit status 0 when `GET /health` answers 200, 1 otherwise (no shell or curl needed). */
export function healthcheckCommand(options: CliOptions): Promise<number> {
  return reported('healthcheck', () => checkHealth(options));
}

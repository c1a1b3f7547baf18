import { existsSync, rmSync } from 'node:fs';
import { DEFAULT_PIDFILE } from './server-options.js';
import { processAlive, readPidFile } from './pidfile.js';
import { errorText } from '../../engine/model/index.js';

const STOP_GRACE_MS = 10_000;

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

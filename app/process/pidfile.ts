import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/** Written atomically so a poller never reads a half-written PID. */
export function writePidFile(path: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, String(process.pid));
  renameSync(temp, path);
}

/** The PID in the file; undefined when the file is missing or holds no PID. */
export function readPidFile(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Removes the file only while it still names this process (another server may have taken it over). */
export function removeOwnPidFile(path: string): void {
  if (readPidFile(path) === process.pid) rmSync(path, { force: true });
}

/** True while the process runs; an exited process its parent has not reaped yet (a zombie) counts as gone. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Linux only (`/proc/<pid>/stat`, state after the parenthesised name); elsewhere nothing is a zombie. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

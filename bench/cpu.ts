/**
 * A server's CPU time from /proc/<pid>/stat: utime + stime of the whole thread group (the kernel sums
 * every thread, live and exited), so a per-core server's engine threads are all counted; and its main
 * thread's alone (/proc/<pid>/task/<pid>/stat), the share that more engine threads cannot spread.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim();
    const value = Number(out);
    ticksPerSecond = Number.isInteger(value) && value > 0 ? value : 100;
  }
  return ticksPerSecond;
}

export interface CpuTime {
  /** Every thread of the process. */
  all: number;
  /** The main thread (the one that runs the admin plane, the manager and the journal). */
  main: number;
}

/** CPU seconds used so far by process `pid`, or undefined where /proc is not readable (not Linux). */
export function cpuTime(pid: number | undefined): CpuTime | undefined {
  if (pid === undefined) return undefined;
  const all = statSeconds(`/proc/${pid}/stat`);
  const main = statSeconds(`/proc/${pid}/task/${pid}/stat`);
  return all !== undefined && main !== undefined ? { all, main } : undefined;
}

function statSeconds(file: string): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) / clockTicks();
}

/**
 * `node --import tsx bench/startup.ts`: start-up cost of the built CLI beside mountebank 2.9.1.
 *
 * Prints the median of STARTUP_RUNS (default 10) wall-clock runs for: bare `node -e 0` (the floor),
 * `--version`, and `start` until `GET /` on the admin port answers. Runs are interleaved (svc, mb,
 * svc, ...) so load from elsewhere on the machine hits both sides alike. For `start` it also prints
 * the median CPU time (user + system) the server had used when it answered, which load from other
 * processes barely moves (Linux: read from /proc). Build first (`npx tsc -p tsconfig.json`): svc runs
 * its package `bin`, the bundle tools/bundle.mjs makes from dist/ (remade here so it matches dist/).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot } from '../test/support/servers.js';
import { envInteger } from './env.js';

const runs = envInteger('STARTUP_RUNS', 10);
if (!existsSync(join(repoRoot, 'dist/tools/svc.js'))) throw new Error('dist/ is missing: build with `npx tsc -p tsconfig.json`');
execFileSync(process.execPath, [join(repoRoot, 'tools/bundle.mjs')], { stdio: 'ignore' });
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: { svc: string } };
const svcEntry = join(repoRoot, pkg.bin.svc);
const mbEntry = join(repoRoot, 'node_modules/mountebank/bin/mb');
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** Seconds from spawn to exit of a command that must succeed. */
function timeExit(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code === 0) resolve(seconds);
      else reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

/** Resolves true once one GET answers with any status, false when the connection is refused. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(true));
    });
    req.once('error', () => resolve(false));
    req.end();
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** CPU seconds (user + system) a live process has used; undefined where /proc is missing. */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    // utime and stime are fields 14 and 15 (man 5 proc): 12th and 13th after the parenthesised command name.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return undefined;
  }
}

interface Ready {
  seconds: number;
  cpu?: number;
}

/** Seconds from spawn until `GET /` on the admin port answers, and the CPU used by then; the server is stopped afterwards. */
async function timeReady(argsFor: (port: number, dir: string) => string[]): Promise<Ready> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-startup-'));
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, argsFor(port, dir), { cwd: dir, stdio: 'ignore' });
  try {
    const deadline = Date.now() + 30_000;
    while (!(await answers(port))) {
      if (child.exitCode !== null) throw new Error(`node ${argsFor(port, dir).join(' ')} exited ${child.exitCode} before answering`);
      if (Date.now() > deadline) throw new Error(`port ${port} did not answer within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, cpu: cpuSeconds(child.pid) };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface Measure {
  label: string;
  svc: () => Promise<number | Ready>;
  mountebank?: () => Promise<number | Ready>;
  target?: number;
}

const asReady = (value: number | Ready): Ready => (typeof value === 'number' ? { seconds: value } : value);

const measures: Measure[] = [
  { label: 'node -e 0 (floor)', svc: () => timeExit(['-e', '0']) },
  {
    label: '--version',
    svc: () => timeExit([svcEntry, '--version']),
    mountebank: () => timeExit([mbEntry, '--version']),
    target: 0.15,
  },
  {
    label: 'start until GET / answers',
    svc: () => timeReady((port, dir) => [svcEntry, 'start', '--port', String(port), '--pidfile', join(dir, 'svc.pid'), '--nologfile']),
    mountebank: () => timeReady((port, dir) => [mbEntry, '--port', String(port), '--pidfile', join(dir, 'mb.pid'), '--nologfile']),
    target: 0.35,
  },
];

const seconds = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(3));
process.stdout.write(`start-up, median of ${runs} (seconds)\n`);
process.stdout.write(
  `${'measure'.padEnd(28)}${'svc'.padStart(8)}${'mb 2.9.1'.padStart(10)}${'target'.padStart(8)}` + `${'svc cpu'.padStart(10)}${'mb cpu'.padStart(8)}\n`,
);
const cpuMedian = (values: Ready[]): number | undefined => {
  const cpu = values.map((value) => value.cpu).filter((value) => value !== undefined);
  return cpu.length > 0 ? median(cpu) : undefined;
};
for (const measure of measures) {
  const svcRuns: Ready[] = [];
  const mbRuns: Ready[] = [];
  for (let i = 0; i < runs; i++) {
    svcRuns.push(asReady(await measure.svc()));
    if (measure.mountebank) mbRuns.push(asReady(await measure.mountebank()));
  }
  const svc = median(svcRuns.map((run) => run.seconds));
  const mb = mbRuns.length ? median(mbRuns.map((run) => run.seconds)) : undefined;
  const verdict = measure.target === undefined ? '' : svc <= measure.target ? '  ok' : '  over';
  process.stdout.write(
    `${measure.label.padEnd(28)}${seconds(svc).padStart(8)}${seconds(mb).padStart(10)}${seconds(measure.target).padStart(8)}`
      + `${seconds(cpuMedian(svcRuns)).padStart(10)}${seconds(cpuMedian(mbRuns)).padStart(8)}${verdict}\n`,
  );
}

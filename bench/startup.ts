/**
 * `node --import tsx bench/startup.ts`: start-up cost of the built CLI beside mountebank 2.9.1.
 *
 * Prints the median of STARTUP_RUNS (default 10) wall-clock runs for: bare `node -e 0` (the floor),
 * `--version`, and `start` until `GET /` on the admin port answers. Runs are interleaved (svc, mb,
 * svc, ...) so load from elsewhere on the machine hits both sides alike. Build first
 * (`npx tsc -p tsconfig.json`): svc runs from dist/, as users run it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot } from '../test/helpers/servers.js';
import { envInteger } from './env.js';

const runs = envInteger('STARTUP_RUNS', 10);
const svcEntry = join(repoRoot, 'dist/tools/svc.js');
const mbEntry = join(repoRoot, 'node_modules/mountebank/bin/mb');
if (!existsSync(svcEntry)) throw new Error(`${svcEntry} is missing: build with \`npx tsc -p tsconfig.json\``);

/** Seconds from spawn to exit of a command that must succeed. */
function timeExit(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
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
    child.once('exit', () => { clearTimeout(force); resolve(); });
    child.kill('SIGTERM');
  });
}

/** Seconds from spawn until `GET /` on the admin port answers; the server is stopped afterwards. */
async function timeReady(argsFor: (port: number, dir: string) => string[]): Promise<number> {
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
    return Number(process.hrtime.bigint() - started) / 1e9;
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
  svc: () => Promise<number>;
  mountebank?: () => Promise<number>;
  target?: number;
}

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
process.stdout.write(`${'measure'.padEnd(28)}${'svc'.padStart(8)}${'mb 2.9.1'.padStart(10)}${'target'.padStart(8)}\n`);
for (const measure of measures) {
  const svcTimes: number[] = [];
  const mbTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    svcTimes.push(await measure.svc());
    if (measure.mountebank) mbTimes.push(await measure.mountebank());
  }
  const svc = median(svcTimes);
  const verdict = measure.target === undefined ? '' : svc <= measure.target ? '  ok' : '  over';
  process.stdout.write(
    `${measure.label.padEnd(28)}${seconds(svc).padStart(8)}${seconds(mbTimes.length ? median(mbTimes) : undefined).padStart(10)}`
    + `${seconds(measure.target).padStart(8)}${verdict}\n`,
  );
}

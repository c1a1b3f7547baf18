/**
 * Spawning svc and mountebank for tests and benches, plus a minimal HTTP client.
 *
 * uvu runs every test file in one process, so nothing here may leave a handle open: children are
 * killed (SIGTERM, then SIGKILL after a grace period) and reaped on stop, their output pipes end with
 * them, and a process 'exit' hook kills any child a crashed run left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv } from './child-env.js';
import { svcCli } from './svc-cli.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface RunningServer {
  adminPort: number;
  /** The spawned process (a `taskset` wrapper execs, so it keeps this pid); benches read its CPU time. */
  pid?: number;
  /** Resolves once the process has exited; safe to call twice. */
  stop(): Promise<void>;
}

export interface SpawnSpec {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  adminPort: number;
  /** Path answered once the admin API is up (any HTTP status counts). */
  readyPath: string;
  /** Where the admin API answers (default 127.0.0.1; a fleet node on 127.0.0.2 answers there only). */
  readyHost?: string;
  readyTimeoutMs?: number;
  /** Called after the process has exited (temp dirs, ...). */
  cleanup?: () => void;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

/**
 * Ports tests hand to servers come from below the kernel's ephemeral range (32768+ here), so an
 * outgoing client connection can never take one between this check and the server's bind, and the
 * same port is never handed out twice in one run.
 */
const TEST_PORTS = { first: 20000, count: 12000 };
let nextTestPort = TEST_PORTS.first + ((process.pid * 7919) % TEST_PORTS.count);
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    // No host: the wildcard, as servers bind their imposters, so a port taken on any address is refused.
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on and no earlier call of this run returned. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < TEST_PORTS.count; tries++) {
    const port = nextTestPort;
    nextTestPort = TEST_PORTS.first + ((nextTestPort + 1 - TEST_PORTS.first) % TEST_PORTS.count);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port left in ${TEST_PORTS.first}-${TEST_PORTS.first + TEST_PORTS.count - 1}`);
}

/** Starts a server process and waits for its admin port; rejects with the process output on failure. */
export async function spawnServer(spec: SpawnSpec): Promise<RunningServer> {
  // A process group of its own, so stop() also reaches anything the command forks.
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd ?? repoRoot,
    env: spec.env ?? childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  let output = '';
  const keepTail = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keepTail);
  child.stderr?.on('data', keepTail);
  let gone = false;
  const exited = new Promise<void>((resolve) => {
    const finish = () => {
      if (gone) return;
      gone = true;
      live.delete(child);
      spec.cleanup?.();
      resolve();
    };
    child.once('exit', finish);
    // A command that cannot be spawned at all reports only 'error'.
    child.once('error', (err) => {
      output += `\nspawn error: ${err.message}`;
      if (!child.pid) finish();
    });
  });

  const stop = async () => {
    if (!gone) {
      killGroup(child, 'SIGTERM');
      const grace = setTimeout(() => killGroup(child, 'SIGKILL'), 2000);
      await exited;
      clearTimeout(grace);
    }
    await exited;
  };

  // Generous: a cold Node start took over 20 s under a load of 35 on 2 cores.
  const deadline = Date.now() + (spec.readyTimeoutMs ?? 120_000);
  for (;;) {
    if (gone || child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`${spec.command} ${spec.args.join(' ')} exited before answering:\n${output}`);
    }
    try {
      await http('GET', `http://${spec.readyHost ?? '127.0.0.1'}:${spec.adminPort}${spec.readyPath}`, { timeoutMs: 10_000 });
      return { adminPort: spec.adminPort, pid: child.pid, stop };
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${spec.command} ${spec.args.join(' ')} did not answer on ${spec.adminPort}:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

export interface MountebankOptions {
  args?: string[];
  /** Prefix such as ['taskset', '-c', '0'] to pin the process. */
  wrapper?: string[];
  adminPort?: number;
}

/** The node command line that runs mountebank 2.9.1 (see mountebank/openssl.cnf for the OpenSSL settings). */
export const mountebankCommand = [
  process.execPath,
  `--openssl-config=${join(repoRoot, 'test/support/mountebank/openssl.cnf')}`,
  join(repoRoot, 'node_modules/mountebank/bin/mb'),
];

/** mountebank 2.9.1 from node_modules; its log and pid files go to a temp dir, not the repo. */
export async function startMountebank(options: MountebankOptions = {}): Promise<RunningServer> {
  const adminPort = options.adminPort ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'svc-mb-'));
  const mb = [...mountebankCommand, '--port', String(adminPort), '--nologfile', '--pidfile', join(dir, 'mb.pid'), ...(options.args ?? [])];
  const [command, ...args] = [...(options.wrapper ?? []), ...mb];
  return spawnServer({
    command: command!,
    args,
    adminPort,
    readyPath: '/imposters',
    cwd: dir,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
}

export interface SvcOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  adminPort?: number;
  /** `--host`: the admin API (and the imposters) bind there, so readiness is probed there too. */
  host?: string;
}

/** Resident set size of process `pid` in MB (/proc/<pid>/status VmRSS). */
export function rssMbOf(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

/** svc from source through tsx, so tests need no build; no log file unless the test names one (like mountebank's). */
export async function startSvc(options: SvcOptions = {}): Promise<RunningServer> {
  const adminPort = options.adminPort ?? (await freePort());
  const args = options.args ?? [];
  const logFile = args.includes('--logfile') || args.includes('--nologfile') ? [] : ['--nologfile'];
  return spawnServer({
    command: process.execPath,
    args: [...svcCli, 'start', '--port', String(adminPort), ...(options.host ? ['--host', options.host] : []), ...logFile, ...args],
    env: childEnv(options.env),
    adminPort,
    readyPath: '/',
    readyHost: options.host,
  });
}

export interface HttpOptions {
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Alternating name/value list exactly as received (names keep their case, repeats kept). */
  rawHeaders: string[];
  body: string;
  bodyBytes: Buffer;
}

/** One request on a fresh connection (agent:false), so no socket outlives the call. */
export function http(method: string, url: string, options: HttpOptions = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const bodyBytes = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: bodyBytes.toString('utf8'),
          bodyBytes,
        });
      });
    });
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

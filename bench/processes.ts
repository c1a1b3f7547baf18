/**
 * The servers under test, each a child process pinned to core 0 (wrk gets core 1) when taskset is
 * available, so the numbers do not depend on which core the scheduler picked.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, repoRoot, spawnServer, startMountebank, type RunningServer } from '../test/support/servers.js';

export interface Pinning {
  server: string[];
  wrk: string[];
}

export function pinning(enabled: boolean): Pinning {
  return enabled ? { server: ['taskset', '-c', '0'], wrk: ['taskset', '-c', '1'] } : { server: [], wrk: [] };
}

/**
 * svc from the build (`npm run bench` compiles first) with a metrics port of its own, so two svc
 * servers never race for the default 9090 and the per-core one can be asked how its engine threads
 * shared the connections. `runtime` becomes `--runtime` / `--workers` flags, which an SVC_RUNTIME in the
 * bench's own environment cannot override; the single side says SVC_RUNTIME=single for the same reason.
 * `BENCH_SVC_CMD` replaces the command, with `{port}` standing for the admin port, e.g. a second
 * mountebank while svc's server is unfinished:
 * BENCH_SVC_CMD='node node_modules/mountebank/bin/mb --nologfile --port {port}'
 */
export async function startSvcServer(
  pin: Pinning,
  runtime: { mode: 'single' | 'per-core'; workers?: number } = { mode: 'single' },
  /** The build to run (another checkout's `dist`, for a before/after comparison); default this one's. */
  dist = join(repoRoot, 'dist'),
): Promise<{ server: RunningServer; command: string; metricsPort?: number }> {
  const adminPort = await freePort();
  const custom = process.env.BENCH_SVC_CMD;
  const entry = join(dist, 'tools/svc.js');
  if (!custom && !existsSync(entry)) throw new Error(`${entry} is missing: build with \`npx tsc -p tsconfig.json\` (npm run bench does)`);
  const metricsPort = custom ? undefined : await freePort();
  const words = custom
    ? custom
        .trim()
        .split(/\s+/)
        .map((w) => w.replaceAll('{port}', String(adminPort)))
    : [
        process.execPath,
        entry,
        'start',
        '--port',
        String(adminPort),
        '--allowInjection',
        '--nologfile',
        '--metrics-port',
        String(metricsPort),
        ...(runtime.mode === 'per-core' ? ['--runtime', 'per-core', ...(runtime.workers ? ['--workers', String(runtime.workers)] : [])] : []),
      ];
  const [command, ...args] = [...pin.server, ...words];
  const server = await spawnServer({ command: command!, args, adminPort, readyPath: '/', env: { ...process.env, SVC_RUNTIME: runtime.mode } });
  return { server, command: words.join(' '), metricsPort };
}

/**
 * mountebank at `warn`: its default `info` logs every request, a cost no benchmark user wants.
 * Both sides run with --allowInjection so scripted scenarios (inject, decorate) can be created.
 */
export function startMountebankServer(pin: Pinning): Promise<RunningServer> {
  return startMountebank({ wrapper: pin.server, args: ['--loglevel', 'warn', '--allowInjection'] });
}

/**
 * A bare node:net hello-world of bench/transport-hello.ts (`bare-close`: one answer, then close;
 * `bare-keep-alive`: answers saying `Connection: keep-alive`, the origin proxies forward to);
 * `adminPort` is its only port.
 */
export async function startCeiling(pin: Pinning, kind: 'bare' | 'bare-keep-alive' | 'bare-close' = 'bare'): Promise<RunningServer> {
  const port = await freePort();
  const [command, ...args] = [...pin.server, process.execPath, '--import', 'tsx', join(repoRoot, 'bench/transport-hello.ts'), kind, String(port)];
  return spawnServer({ command: command!, args, adminPort: port, readyPath: '/' });
}

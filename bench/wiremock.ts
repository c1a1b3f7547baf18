/**
 * WireMock 3.13.2 (the jar the `wiremock` npm package ships; java must be on PATH) as the bench's third
 * column, for the scenarios it can express (scenarios.ts `wiremock`). One server serves every scenario:
 * its mappings are replaced before each. Started without a request journal (`--no-request-journal`),
 * WireMock's own advice for load; its JIT gets a longer warm-up than node (BENCH_WIREMOCK_WARMUP).
 * BENCH_WIREMOCK=0 leaves it out.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, http, repoRoot, spawnServer, type RunningServer } from '../test/support/servers.js';
import type { Pinning } from './processes.js';

export const WIREMOCK_VERSION = '3.13.2';
const JAR = join(repoRoot, `node_modules/wiremock/build/wiremock-standalone-${WIREMOCK_VERSION}.jar`);

/** Why WireMock cannot run here (no jar, no java, or switched off), or undefined when it can. */
export function wiremockUnavailable(): string | undefined {
  if (process.env.BENCH_WIREMOCK === '0') return 'BENCH_WIREMOCK=0';
  if (!existsSync(JAR)) return `${JAR} is missing (npm ci installs the wiremock devDependency)`;
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).status !== 0) return 'java is not on PATH';
  return undefined;
}

export async function startWireMock(pin: Pinning): Promise<RunningServer> {
  const port = await freePort();
  const [command, ...args] = [
    ...pin.server,
    'java',
    '-jar',
    JAR,
    '--port',
    String(port),
    '--bind-address',
    '127.0.0.1',
    '--disable-banner',
    '--no-request-journal',
  ];
  return spawnServer({ command: command!, args, adminPort: port, readyPath: '/__admin/health' });
}

async function admin(server: RunningServer, method: string, path: string, body?: unknown): Promise<string> {
  const res = await http(method, `http://127.0.0.1:${server.adminPort}${path}`, {
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs: 300_000,
  });
  if (res.status >= 300) throw new Error(`WireMock ${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`);
  return res.body;
}

/** Replaces every mapping with `mappings`. */
export async function loadMappings(server: RunningServer, mappings: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  await admin(server, 'DELETE', '/__admin/mappings');
  if (mappings.length > 0) await admin(server, 'POST', '/__admin/mappings/import', { mappings });
}

/** POSTs one mapping; its id. */
export async function addMapping(server: RunningServer, mapping: Record<string, unknown>): Promise<string> {
  return (JSON.parse(await admin(server, 'POST', '/__admin/mappings', mapping)) as { id: string }).id;
}

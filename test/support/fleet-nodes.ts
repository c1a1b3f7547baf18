/**
 * Three svc processes on 127.0.0.1/2/3 in one fleet through a real redis-server (its writes kept on
 * disk, so a restart keeps them), and a real nginx in front of the imposter port: what the fleet
 * tests share.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, http, startSvc, type HttpResponse, type RunningServer } from './servers.js';
import type { Test } from 'uvu';
import { startRedis, SuiteSetup, type RedisServer } from './redis-server.js';
import { startNginx, type Balancer } from './nginx.js';
import { RedisFleet } from '../../app/index.js';
import { silentLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';

export const HOSTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];

export interface Fleet {
  redis: RedisServer;
  redisDir: string;
  nodes: RunningServer[];
  adminPort: number;
  imposterPort: number;
  balancer: Balancer;
}

/** The same admin and imposter ports on every node, side by side on their own loopback addresses. */
export async function startFleet(prefix: string): Promise<Fleet> {
  const redisDir = mkdtempSync(join(tmpdir(), 'svc-fleet-redis-'));
  const redis = await startRedis(undefined, { dir: redisDir });
  const adminPort = await freePort();
  const imposterPort = await freePort();
  const nodes: RunningServer[] = [];
  const fleet: Fleet = { redis, redisDir, nodes, adminPort, imposterPort, balancer: undefined as unknown as Balancer };
  try {
    for (const [i, host] of HOSTS.entries()) {
      nodes.push(await startSvc({ adminPort, host, args: ['--fleet', redis.url, '--fleet-prefix', prefix, '--node-id', `node${i + 1}`] }));
    }
    fleet.balancer = await startNginx(
      await freePort(),
      HOSTS.map((host) => `${host}:${imposterPort}`),
    );
  } catch (err) {
    await stopFleet(fleet);
    throw err;
  }
  return fleet;
}

export async function stopFleet(fleet: Fleet | undefined): Promise<void> {
  if (!fleet) return;
  await fleet.balancer?.stop();
  for (const node of fleet.nodes) await node.stop();
  await fleet.redis.stop();
  rmSync(fleet.redisDir, { recursive: true, force: true });
}

/**
 * A suite's fleet: started before its first test (a failure fails every test), stopped after the last;
 * `get()` is the running fleet.
 */
export function fleetFor(test: Test, prefix: string): SuiteSetup<Fleet> {
  let fleet: Fleet | undefined;
  const setup = new SuiteSetup<Fleet>(async () => {
    fleet = await startFleet(prefix);
    return fleet;
  });
  test.before(setup.run);
  test.after(() => stopFleet(fleet));
  return setup;
}

/** An admin call to node 1, 2 or 3. */
export function admin(fleet: Fleet, node: number, method: string, path: string, body?: unknown): Promise<HttpResponse> {
  return http(method, `http://${HOSTS[node - 1]}:${fleet.adminPort}${path}`, {
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** One request to a node's imposter port; 'refused' when nothing listens there. */
export async function imposterOn(fleet: Fleet, node: number, path = '/'): Promise<HttpResponse | 'refused' | 'reset'> {
  try {
    return await http('GET', `http://${HOSTS[node - 1]}:${fleet.imposterPort}${path}`, { timeoutMs: 5_000 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') return 'refused';
    // A listener closing under the request: neither answered nor refused yet; callers poll again.
    if (code === 'ECONNRESET') return 'reset';
    throw err;
  }
}

/** Polls `check` until it holds (or `limitMs` passes); the elapsed ms when it held. */
export async function until(check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > limitMs) throw new Error(`not reached within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** True when every node passes `check`. */
export const onAll = (check: (node: number) => Promise<boolean>) => async () => (await Promise.all([1, 2, 3].map(check))).every(Boolean);

export interface LoadResult {
  /** Paths answered 200, in the order their answers came. */
  answered: string[];
  /** Requests that got no 200 (a node killed under them), with what they got. */
  failed: string[];
}

/**
 * `total` GETs through the balancer, `concurrency` at a time, each to its own path (`/<tag>/<i>`)
 * so a record can be traced to the request; stops early when `stop()` says so.
 */
export async function load(fleet: Fleet, tag: string, total: number, concurrency: number, stop: () => boolean = () => false): Promise<LoadResult> {
  const result: LoadResult = { answered: [], failed: [] };
  let next = 0;
  const worker = async () => {
    while (next < total && !stop()) {
      const path = `/${tag}/${next++}`;
      try {
        const res = await http('GET', `${fleet.balancer.url}${path}`, { timeoutMs: 10_000 });
        if (res.status === 200) result.answered.push(path);
        else result.failed.push(`${path}: ${res.status}`);
      } catch (err) {
        result.failed.push(`${path}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return result;
}

/** A fleet node made through the embedding API: a manager serving on `host`, given a RedisFleet on `url`. */
export function fleetMember(url: string, host: string, id: string, prefix: string): ImposterManager {
  return new ImposterManager({
    allowInjection: false,
    log: silentLogger,
    host,
    fleet: new RedisFleet({ url, prefix, nodeId: id, address: host, log: silentLogger }),
  });
}

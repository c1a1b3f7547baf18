/**
 * The fleet row (issue 20): a recorded static stub served by two fleet nodes on loopback (one Redis),
 * against the same stub on one plain node, in the same run: server CPU per request (the nodes', and
 * Redis' beside it) and the p99 latency the shared journal adds (each record is stored before its
 * response is sent).
 */
import { join } from 'node:path';
import { freePort, http, repoRoot, spawnServer, type RunningServer } from '../test/support/servers.js';
import { startRedis } from '../test/support/redis-server.js';
import { cpuTime } from './cpu.js';
import { envInteger } from './env.js';
import type { BenchRequest } from './scenarios.js';
import { runWrk, type WrkResult } from './wrk.js';

const REQUEST: BenchRequest = { method: 'GET', path: '/fleet' };
const HOSTS = ['127.0.0.1', '127.0.0.2'];
/** Connections per node: the plain node gets both nodes' worth. */
const CONNECTIONS = 5;

const imposter = (port: number) => ({
  protocol: 'http',
  port,
  recordRequests: true,
  stubs: [{ responses: [{ is: { statusCode: 200, headers: { Connection: 'keep-alive' }, body: 'fleet' } }] }],
});

async function create(host: string, adminPort: number, port: number): Promise<void> {
  const res = await http('POST', `http://${host}:${adminPort}/imposters`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(imposter(port)),
  });
  if (res.status !== 201) throw new Error(`fleet bench: imposter refused with ${res.status}: ${res.body.slice(0, 300)}`);
}

interface Side {
  requests: number;
  p99Ms: number;
  cpuUs: number | undefined;
  redisCpuUs?: number;
}

/** wrk on each url at once for `seconds`; CPU of `pids` over the run, per request answered. */
async function drive(urls: string[], connections: number, pids: Array<number | undefined>, redisPid?: number): Promise<Side> {
  const seconds = envInteger('BENCH_DURATION', 5);
  const run = (url: string, s: number) => runWrk({ url, request: REQUEST, seconds: s, connections, threads: 1, wrapper: [] });
  await Promise.all(urls.map((url) => run(url, 1)));
  const before = pids.map(cpuTime);
  const redisBefore = cpuTime(redisPid);
  const results: WrkResult[] = await Promise.all(urls.map((url) => run(url, seconds)));
  const after = pids.map(cpuTime);
  const redisAfter = cpuTime(redisPid);
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  const cpu = after.every((a, i) => a && before[i]) ? after.reduce((sum, a, i) => sum + a!.all - before[i]!.all, 0) : undefined;
  return {
    requests,
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    cpuUs: cpu === undefined || requests === 0 ? undefined : (1e6 * cpu) / requests,
    redisCpuUs: redisBefore && redisAfter && requests > 0 ? (1e6 * (redisAfter.all - redisBefore.all)) / requests : undefined,
  };
}

export async function fleetRow(single: RunningServer): Promise<string> {
  const port = await freePort();
  await create('127.0.0.1', single.adminPort, port);
  const alone = await drive([`http://127.0.0.1:${port}`], CONNECTIONS * HOSTS.length, [single.pid]);
  await http('DELETE', `http://127.0.0.1:${single.adminPort}/imposters/${port}`);

  const redis = await startRedis();
  const nodes: RunningServer[] = [];
  try {
    const adminPort = await freePort();
    const fleetPort = await freePort();
    for (const [i, host] of HOSTS.entries()) {
      const args = ['start', '--port', String(adminPort), '--host', host, '--nologfile', '--fleet', redis.url, '--node-id', `bench${i + 1}`];
      nodes.push(
        await spawnServer({ command: process.execPath, args: [join(repoRoot, 'dist/tools/svc.js'), ...args], adminPort, readyPath: '/', readyHost: host }),
      );
    }
    await create(HOSTS[0], adminPort, fleetPort);
    // Replicated within 250 ms; wait for the second node's listener.
    for (let i = 0; i < 100; i += 1) {
      const res = await http('GET', `http://${HOSTS[1]}:${fleetPort}${REQUEST.path}`).catch(() => undefined);
      if (res?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const fleet = await drive(
      HOSTS.map((host) => `http://${host}:${fleetPort}`),
      CONNECTIONS,
      nodes.map((n) => n.pid),
      redis.pid,
    );
    const us = (v: number | undefined) => (v === undefined ? '-' : `${v.toFixed(1)} µs`);
    const rows = [
      ['one node', String(alone.requests), us(alone.cpuUs), '-', `${alone.p99Ms.toFixed(2)} ms`, '-'],
      [
        'fleet, 2 nodes',
        String(fleet.requests),
        us(fleet.cpuUs),
        us(fleet.redisCpuUs),
        `${fleet.p99Ms.toFixed(2)} ms`,
        `+${(fleet.p99Ms - alone.p99Ms).toFixed(2)} ms`,
      ],
    ];
    const header = ['', 'requests', 'svc CPU/req', 'redis CPU/req', 'p99', 'p99 Redis adds'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`;
    return [
      line(header),
      line(widths.map((w) => '-'.repeat(w))),
      ...rows.map(line),
      `  recorded static stub, wrk -c${CONNECTIONS * HOSTS.length} in all (the fleet: -c${CONNECTIONS} on each node); CPU from /proc, unpinned`,
    ].join('\n');
  } finally {
    for (const node of nodes) await node.stop();
    await redis.stop();
  }
}

/**
 * Issue 6 bench note: what observability costs the static-stub hot path.
 *
 * Two svc engines (same source, same runtime, each pinned to core 0 with wrk on core 1): one
 * without the metrics plane, one with it. Four cells, interleaved per run so drift hits all alike:
 *   off        — one static `is` stub, metrics plane not started
 *   on         — the same stub, metrics plane started (every request counted)
 *   record     — metrics on, the imposter records requests (journal + event hub, nobody listening)
 *   subscriber — as `record`, with one SSE client on `/events?types=requests` reading everything
 * Before that, the same question without the network: CPU time of `Imposter.handle()` per request
 * in-process (fake sink), metrics observer detached vs attached, which a loaded machine disturbs less.
 * Run: `node --import tsx bench/observability.ts`
 * Env: BENCH_DURATION (seconds per measurement, default 5), BENCH_RUNS (default 3, medians printed).
 * Internal: `bench/observability.ts serve <on|off> <adminPort> <metricsPort>` is the server process.
 */
import { spawnSync } from 'node:child_process';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { createAdminServer, listenAdmin, startMetricsServer, SvcMetrics } from '../admin/index.js';
import { createLogger } from '../engine/log/index.js';
import { ImposterManager } from '../engine/manager/index.js';
import { freePort, http, repoRoot, spawnServer, type RunningServer } from '../test/support/servers.js';
import { pinning } from './processes.js';
import type { BenchRequest } from './scenarios.js';
import { summarize, type Cell } from './table.js';
import { envInteger } from './env.js';
import { ensureWrk, hasTaskset, runWrk } from './wrk.js';

const CONNECTIONS = 50;
const WARMUP_SECONDS = 1;

async function serve(mode: string, adminPort: number, metricsPort: number): Promise<void> {
  const log = createLogger({ level: 'error' });
  const manager = new ImposterManager({ allowInjection: false, log });
  const server = createAdminServer({
    manager,
    log,
    settings: { version: 'bench', port: adminPort, localOnly: false, ipWhitelist: ['*'], noParse: false, requireAdminAuth: false },
    // The server's own CPU time: a figure other load on the machine disturbs far less than req/s.
    extend: (router) =>
      router.on('GET', '/bench/cpu', () => {
        const used = process.cpuUsage();
        return { status: 200, body: { micros: used.user + used.system } };
      }),
  });
  await listenAdmin(server, adminPort, '127.0.0.1');
  if (mode === 'on') await startMetricsServer({ port: metricsPort, host: '127.0.0.1', manager, admin: server });
}

const request: BenchRequest = { method: 'GET', path: '/' };
const stub = { responses: [{ is: { statusCode: 200, headers: { Connection: 'keep-alive', 'Content-Type': 'text/plain' }, body: 'hello' } }] };

async function imposter(server: RunningServer, recordRequests: boolean): Promise<number> {
  const res = await http('POST', `http://127.0.0.1:${server.adminPort}/imposters`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ protocol: 'http', recordRequests, stubs: [stub] }),
  });
  if (res.status !== 201) throw new Error(`imposter refused: ${res.status} ${res.body}`);
  return (JSON.parse(res.body) as { port: number }).port;
}

/** A reader that consumes the stream as fast as it can and counts what it got. */
function subscribe(adminPort: number, port: number): { stop(): { requests: number; missed: number } } {
  let requests = 0;
  let missed = 0;
  let tail = '';
  const req: ClientRequest = httpRequest(`http://127.0.0.1:${adminPort}/events?types=requests&port=${port}`, { agent: false }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const text = tail + chunk;
      const cut = text.lastIndexOf('\n\n');
      tail = cut === -1 ? text : text.slice(cut + 2);
      const complete = cut === -1 ? '' : text.slice(0, cut);
      for (const frame of complete.split('\n\n')) {
        if (frame.includes('event: request')) requests += 1;
        else if (frame.includes('event: lagged')) missed += (JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { missed: number }).missed;
      }
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return {
    stop: () => {
      req.destroy();
      return { requests, missed };
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** CPU ns per `handle()` of a static stub, metrics observer detached vs attached, rounds interleaved. */
async function handleCost(rounds: number, perRound: number): Promise<{ off: number; on: number }> {
  const log = createLogger({ level: 'error', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log, host: '127.0.0.1' });
  try {
    const created = await manager.createImposter({ protocol: 'http', stubs: [stub] });
    const target = manager.get(created.port)!;
    const wire = {
      method: 'GET',
      url: '/',
      httpVersion: '1.1' as const,
      rawHeaders: ['Host', 'localhost:8080', 'User-Agent', 'wrk', 'Accept', '*/*'],
      body: Buffer.alloc(0),
      remoteAddress: '127.0.0.1',
      remotePort: 50000,
    };
    const sink = { protocol: 'http1' as const, send() {}, reset() {}, closeEmpty() {}, writeRawAndClose() {} };
    const metrics = new SvcMetrics();
    const time = () => {
      const before = process.cpuUsage();
      for (let i = 0; i < perRound; i += 1) target.handle(wire, sink);
      const used = process.cpuUsage(before);
      return ((used.user + used.system) * 1000) / perRound;
    };
    time();
    const off: number[] = [];
    const on: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      off.push(time());
      const detach = manager.observe(metrics);
      on.push(time());
      detach();
    }
    return { off: median(off), on: median(on) };
  } finally {
    await manager.close();
  }
}

async function main(): Promise<void> {
  const cost = await handleCost(9, 300_000);
  process.stdout.write(
    [
      'in-process Imposter.handle(), static is stub, fake sink, CPU time, median of 9 rounds of 300,000',
      `  metrics observer detached  ${cost.off.toFixed(0).padStart(5)} ns/request`,
      `  metrics observer attached  ${cost.on.toFixed(0).padStart(5)} ns/request  (+${(cost.on - cost.off).toFixed(0)} ns, ${(100 * (cost.on / cost.off - 1)).toFixed(1)}%)`,
      '',
    ].join('\n') + '\n',
  );
  ensureWrk();
  const pinned = hasTaskset();
  // The SSE reader runs in this process: keep it on wrk's core, off the server's.
  if (pinned) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
  const duration = envInteger('BENCH_DURATION', 5);
  const runs = envInteger('BENCH_RUNS', 3);
  const pin = pinning(pinned);
  const servers: RunningServer[] = [];
  const start = async (mode: 'on' | 'off', metricsPort: number) => {
    const adminPort = await freePort();
    const [command, ...args] = [
      ...pin.server,
      process.execPath,
      '--import',
      'tsx',
      join(repoRoot, 'bench/observability.ts'),
      'serve',
      mode,
      String(adminPort),
      String(metricsPort),
    ];
    const server = await spawnServer({ command: command!, args, adminPort, readyPath: '/' });
    servers.push(server);
    return server;
  };
  try {
    const metricsPort = await freePort();
    const off = await start('off', 0);
    const on = await start('on', metricsPort);
    const urls = {
      off: `http://127.0.0.1:${await imposter(off, false)}`,
      on: `http://127.0.0.1:${await imposter(on, false)}`,
      record: `http://127.0.0.1:${await imposter(on, true)}`,
    };
    const recordPort = Number(new URL(urls.record).port);
    const cells: Record<'off' | 'on' | 'record' | 'subscriber', Cell> = { off: { runs: [] }, on: { runs: [] }, record: { runs: [] }, subscriber: { runs: [] } };
    const cpu: Record<keyof typeof cells, number[]> = { off: [], on: [], record: [], subscriber: [] };
    const delivered = { requests: 0, missed: 0 };
    const cpuMicros = async (server: RunningServer) =>
      (JSON.parse((await http('GET', `http://127.0.0.1:${server.adminPort}/bench/cpu`)).body) as { micros: number }).micros;
    const measure = async (cell: keyof typeof cells, server: RunningServer, url: string) => {
      const base = { url, request, connections: CONNECTIONS, threads: 1, wrapper: pin.wrk };
      await runWrk({ ...base, seconds: WARMUP_SECONDS });
      const before = await cpuMicros(server);
      const result = await runWrk({ ...base, seconds: duration });
      cpu[cell].push(((await cpuMicros(server)) - before) / result.requests);
      cells[cell].runs.push(result);
    };
    for (let run = 0; run < runs; run += 1) {
      await measure('off', off, urls.off);
      await measure('on', on, urls.on);
      await measure('record', on, urls.record);
      const reader = subscribe(on.adminPort, recordPort);
      await measure('subscriber', on, urls.record);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const got = reader.stop();
      delivered.requests += got.requests;
      delivered.missed += got.missed;
      process.stderr.write(`bench: run ${run + 1}/${runs} done\n`);
    }
    const scrape = await http('GET', `http://127.0.0.1:${metricsPort}/metrics`);
    const counted = scrape.body
      .split('\n')
      .filter((l) => l.startsWith('svc_requests_total{'))
      .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
    const [o, m, r, s] = (['off', 'on', 'record', 'subscriber'] as const).map((k) => ({ ...summarize(cells[k]), cpuUs: median(cpu[k]) }));
    const rps = (x: { requestsPerSecond: number }) => Math.round(x.requestsPerSecond).toLocaleString('en-US').padStart(9);
    const pct = (a: { requestsPerSecond: number }, b: { requestsPerSecond: number }) =>
      `${(100 * (a.requestsPerSecond / b.requestsPerSecond - 1)).toFixed(1)}%`;
    const p99 = (x: { p99Ms: number }) => `${x.p99Ms.toFixed(2)} ms`;
    const us = (x: { cpuUs: number }) => `${x.cpuUs.toFixed(2)} µs`;
    const cpuPct = (a: { cpuUs: number }, b: { cpuUs: number }) => `${(100 * (a.cpuUs / b.cpuUs - 1)).toFixed(1)}%`;
    process.stdout.write(
      [
        `observability cost, static is stub, wrk -t1 -c${CONNECTIONS} -d${duration}s, median of ${runs}, node ${process.version}`,
        `  pinning: ${pinned ? 'servers core 0, wrk and the SSE reader core 1' : 'none'}`,
        '',
        '                                                         throughput      p99           server CPU per request',
        `  off         metrics plane not started                 ${rps(o!)} req/s  ${p99(o!)}  ${us(o!)}`,
        `  on          metrics plane started                     ${rps(m!)} req/s  ${p99(m!)}  ${us(m!)}  (vs off: ${pct(m!, o!)} req/s, ${cpuPct(m!, o!)} CPU)`,
        `  record      + recordRequests, no subscriber           ${rps(r!)} req/s  ${p99(r!)}  ${us(r!)}  (vs on: ${pct(r!, m!)} req/s, ${cpuPct(r!, m!)} CPU)`,
        `  subscriber  + one SSE client on /events?types=requests ${rps(s!)} req/s  ${p99(s!)}  ${us(s!)}  (vs record: ${pct(s!, r!)} req/s, ${cpuPct(s!, r!)} CPU)`,
        '',
        `  SSE client received ${delivered.requests.toLocaleString('en-US')} request events, lagged reported ${delivered.missed.toLocaleString('en-US')} missed`,
        `  svc_requests_total on the metrics plane: ${counted.toLocaleString('en-US')} (all traffic of the 'on' engine, warm-ups included)`,
        `  errors: ${[o, m, r, s].reduce((n, x) => n + x!.errors, 0)}`,
      ].join('\n') + '\n',
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

if (process.argv[2] === 'serve') {
  serve(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5])).catch((err: unknown) => {
    process.stderr.write(`serve: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
} else {
  main().catch((err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}

/**
 * Bench sections beyond wrk's one-request scenarios (issue 19): each measures svc and mountebank its
 * own way and prints its own table, with the target it is held to. `BENCH_ONLY` names them by id.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { http, repoRoot, type RunningServer } from '../test/support/servers.js';
import { cpuMsPerPost, EDIT_SIZES, EDIT_TARGETS } from './admin-edits.js';
import { cpuTime } from './cpu.js';
import { envInteger } from './env.js';
import type { BenchRequest } from './scenarios.js';
import { runWrk } from './wrk.js';

export interface SectionServers {
  svc: RunningServer;
  mb: RunningServer;
}

export interface Section {
  id: string;
  title: string;
  run(servers: SectionServers): Promise<string>;
}

const ms = (value: number | undefined) => (value === undefined ? '-' : `${value.toFixed(2)} ms`);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Server CPU µs per request over a short wrk run (one connection per core's worth, no pinning: these rows are brief). */
async function cpuPerRequest(server: RunningServer, url: string, request: BenchRequest): Promise<number | undefined> {
  const seconds = envInteger('BENCH_DURATION', 5);
  const base = { url, request, connections: 10, threads: 1, wrapper: [] };
  await runWrk({ ...base, seconds: 1 });
  const before = cpuTime(server.pid);
  const result = await runWrk({ ...base, seconds });
  const after = cpuTime(server.pid);
  return before && after && result.requests > 0 ? (1e6 * (after.all - before.all)) / result.requests : undefined;
}

const us = (value: number | undefined) => (value === undefined ? '-' : `${value.toFixed(1)} µs`);

async function createImposter(server: RunningServer, body: unknown): Promise<number> {
  const res = await http('POST', `http://127.0.0.1:${server.adminPort}/imposters`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`imposter refused with ${res.status}: ${res.body.slice(0, 300)}`);
  return (JSON.parse(res.body) as { port: number }).port;
}

export const sections: Section[] = [
  {
    id: 'edits',
    title: 'POST /imposters/{port}/stubs (one path stub, reply included): server CPU per POST by stubs already there',
    async run({ svc, mb }) {
      const edits = envInteger('BENCH_EDITS', 20);
      const rows: string[][] = [];
      for (const stubs of EDIT_SIZES) {
        const svcMs = await cpuMsPerPost(svc, stubs, edits);
        const mbMs = await cpuMsPerPost(mb, stubs, edits);
        const target = EDIT_TARGETS[stubs];
        const verdict = target === undefined || svcMs === undefined ? '' : svcMs <= target ? 'met' : `missed by ${(svcMs / target).toFixed(1)}x`;
        rows.push([stubs.toLocaleString('en-US'), ms(svcMs), ms(mbMs), target === undefined ? '-' : `<= ${target} ms`, verdict]);
      }
      return `${table(['stubs', 'svc', 'mountebank', 'target', ''], rows)}\n  ${edits} POSTs per cell after 3 warm-up ones; CPU from /proc at 10 ms ticks`;
    },
  },
  {
    id: 'journal',
    title: 'journal reads: admin GETs against an imposter whose journal is full (10,000 recorded requests), server CPU per request',
    async run({ svc, mb }) {
      const rows: string[][] = [];
      const sides = [
        { name: 'svc', server: svc },
        { name: 'mountebank', server: mb },
      ];
      const cells = new Map<string, Array<number | undefined>>();
      for (const { name, server } of sides) {
        const port = await createImposter(server, { protocol: 'http', recordRequests: true, stubs: [{ responses: [{ is: { body: 'ok' } }] }] });
        const quiet = await createImposter(server, { protocol: 'http', stubs: [{ responses: [{ is: { body: 'ok' } }] }] });
        // Fill the journal: wrk until 10,000 requests are recorded (svc keeps the last 10,000; mountebank all).
        await runWrk({ url: `http://127.0.0.1:${port}`, request: { method: 'GET', path: '/fill' }, seconds: 3, connections: 10, threads: 1, wrapper: [] });
        const admin = `http://127.0.0.1:${server.adminPort}`;
        const tip = (await http('GET', `${admin}/imposters/${port}/savedRequests?since=0`)).headers['x-svc-next-index'];
        cells.set(name, [
          name === 'svc' ? await cpuPerRequest(server, admin, { method: 'GET', path: `/imposters/${port}/savedRequests?since=${tip}` }) : undefined,
          await cpuPerRequest(server, admin, { method: 'GET', path: '/' }),
          await cpuPerRequest(server, admin, { method: 'GET', path: `/imposters/${quiet}` }),
        ]);
        await http('DELETE', `${admin}/imposters/${port}`, { timeoutMs: 120_000 });
        await http('DELETE', `${admin}/imposters/${quiet}`);
      }
      const labels = ['empty poll savedRequests?since=<tip> (svc only)', 'plain admin GET /', 'GET /imposters/{port}, one-stub imposter'];
      for (const [i, label] of labels.entries()) rows.push([label, us(cells.get('svc')?.[i]), us(cells.get('mountebank')?.[i])]);
      const [poll, plain] = cells.get('svc') ?? [];
      const verdict = poll !== undefined && plain !== undefined ? (poll <= plain ? 'met' : `missed by ${(poll / plain).toFixed(2)}x`) : '-';
      return `${table(['request', 'svc', 'mountebank'], rows)}\n  target: empty poll <= plain admin GET: ${verdict}; GET of one imposter <= WireMock's 41.5 µs (issue's figure; WireMock not run here)\n  wrk -t1 -c10, unpinned, after a 1 s warm-up`;
    },
  },
  {
    id: 'memory',
    title: 'memory per imposter of 10 path stubs (not recording)',
    async run({ mb }) {
      const count = envInteger('BENCH_IMPOSTERS', 1000);
      const probe = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/memory-probe.ts', String(count)], {
        cwd: repoRoot,
        encoding: 'utf8',
      });
      const svc = JSON.parse(probe.stdout.trim().split('\n').pop() ?? '{}') as { heapPerImposter?: number; rssPerImposter?: number };
      // mountebank cannot be asked to collect garbage: its RSS growth over `count` imposters made through its admin API.
      const before = rssOf(mb.pid);
      const ports: number[] = [];
      for (let n = 0; n < count; n++) ports.push(await createImposter(mb, tenStubs(n)));
      const after = rssOf(mb.pid);
      for (const port of ports) await http('DELETE', `http://127.0.0.1:${mb.adminPort}/imposters/${port}`);
      const kb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${(bytes / 1024).toFixed(1)} KB`);
      const heap = svc.heapPerImposter;
      const verdict = heap === undefined ? '-' : heap <= 60 * 1024 ? 'met' : `missed by ${(heap / (60 * 1024)).toFixed(2)}x`;
      return `${table(
        ['measure', 'svc', 'mountebank'],
        [
          ['heap + external after GC, per imposter', kb(heap), '-'],
          ['RSS growth per imposter', kb(svc.rssPerImposter), before && after ? kb((after - before) / count) : '-'],
        ],
      )}\n  ${count} imposters; svc: bench/memory-probe.ts (one manager, --expose-gc); target <= 60 KB after GC: ${verdict}`;
    },
  },
];

function tenStubs(n: number): Record<string, unknown> {
  return {
    protocol: 'http',
    stubs: Array.from({ length: 10 }, (_, i) => ({
      predicates: [{ equals: { method: 'GET', path: `/i${n}/s${i}` } }],
      responses: [{ is: { statusCode: 200, headers: { 'Content-Type': 'text/plain' }, body: `imposter ${n} stub ${i}` } }],
    })),
  };
}

/** Resident set size of a process in bytes (/proc/<pid>/status VmRSS), or undefined off Linux. */
function rssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

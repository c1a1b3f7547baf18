/**
 * Issue 4, must-show 4: a fault-injected imposter under wrk load keeps every other imposter's
 * throughput within 10% of its figure when the same neighbour carries no faults.
 *
 * One svc process (core 0) serves three imposters: two neighbours (A, C) and B. Three wrk processes
 * (core 1) load all three at once. Phases, interleaved per run so drift hits all alike:
 *   alone   — A and C loaded, B idle (context only)
 *   plain   — B loaded and fault-free: the neighbours' no-fault figure
 *   faulty  — B loaded with latency, error and TCP reset faults
 *   resets  — B loaded with TCP resets and errors only (no latency to slow its client down)
 * Run: `npx tsc -p tsconfig.json && node --import tsx bench/faults.ts`
 * Verdict: per run, a neighbour's figure beside faulty B over its figure beside fault-free B; the
 * median of those ratios must be at least 90%.
 * Env: BENCH_DURATION (seconds per measurement, default 5), BENCH_RUNS (default 3, medians printed),
 * BENCH_SVC_CMD (see processes.ts).
 */
import { http, type RunningServer } from '../test/support/servers.js';
import { pinning, startSvcServer } from './processes.js';
import type { BenchRequest } from './scenarios.js';
import { summarize, type Cell } from './table.js';
import { envInteger } from './env.js';
import { ensureWrk, hasTaskset, runWrk, type WrkResult } from './wrk.js';

const CONNECTIONS = 32;
const WARMUP_SECONDS = 1;
const THRESHOLD_PERCENT = 90;

const duration = envInteger('BENCH_DURATION', 5);
const runs = envInteger('BENCH_RUNS', 3);

const keepAlive = { Connection: 'keep-alive' };
const request: BenchRequest = { method: 'GET', path: '/' };
const plainStubs = [{ responses: [{ is: { headers: keepAlive, body: 'ok' } }] }];
const faultyStubs = [
  {
    responses: [
      {
        is: { headers: keepAlive, body: 'ok' },
        _svc: {
          fault: {
            latency: { probability: 0.2, minMs: 5, maxMs: 50 },
            tcp: { probability: 0.05, type: 'reset' },
            error: { probability: 0.2, status: 503, headers: keepAlive, body: 'injected' },
          },
        },
      },
    ],
  },
];
/** No latency: B keeps its request rate up, so resets (reconnects) and 503s cost the server the most. */
const resetStubs = [
  {
    responses: [
      {
        is: { headers: keepAlive, body: 'ok' },
        _svc: { fault: { tcp: { probability: 0.3, type: 'reset' }, error: { probability: 0.3, status: 503, headers: keepAlive, body: 'injected' } } },
      },
    ],
  },
];
const B_STUBS = { alone: plainStubs, plain: plainStubs, faulty: faultyStubs, resets: resetStubs };

type Phase = keyof typeof B_STUBS;
const PHASES: Phase[] = ['alone', 'plain', 'faulty', 'resets'];
const FAULTY_PHASES: Phase[] = ['faulty', 'resets'];
type Name = 'A' | 'B' | 'C';

async function admin(server: RunningServer, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await http(method, `http://127.0.0.1:${server.adminPort}${path}`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

async function createImposter(server: RunningServer, stubs: unknown[]): Promise<string> {
  const created = await admin(server, 'POST', '/imposters', { protocol: 'http', stubs });
  const url = `http://127.0.0.1:${String(created.port)}`;
  const check = await http('GET', `${url}/`);
  if (check.body !== 'ok' && check.body !== 'injected') throw new Error(`${url} answered ${check.status} «${check.body}»`);
  return url;
}

async function measurePhase(urls: Record<Name, string>, loaded: Name[], wrkPin: string[]): Promise<Map<Name, WrkResult>> {
  const load = (seconds: number) =>
    Promise.all(loaded.map((name) => runWrk({ url: urls[name], request, seconds, connections: CONNECTIONS, threads: 1, wrapper: wrkPin })));
  await load(WARMUP_SECONDS);
  const results = await load(duration);
  return new Map(loaded.map((name, i) => [name, results[i]!]));
}

/**
 * Median over runs of this run's figure against the reference measured moments before in the same
 * run: pairing cancels most of the drift other load on the machine causes between runs.
 */
function pairedPercent(measured: Cell, reference: Cell): number {
  const ratios = measured.runs.map((r, i) => (100 * r.requestsPerSecond) / reference.runs[i]!.requestsPerSecond).sort((a, b) => a - b);
  const mid = ratios.length >> 1;
  return ratios.length % 2 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2;
}

const rps = (cell: Cell | undefined) => (cell ? Math.round(summarize(cell).requestsPerSecond).toLocaleString('en-US') : '-');

async function main(): Promise<void> {
  ensureWrk();
  const pinned = hasTaskset();
  const pin = pinning(pinned);
  const { server, command } = await startSvcServer(pin);
  try {
    const urls: Record<Name, string> = {
      A: await createImposter(server, plainStubs),
      B: await createImposter(server, plainStubs),
      C: await createImposter(server, plainStubs),
    };
    const bPort = new URL(urls.B).port;
    const cells = new Map<string, Cell>();
    const cell = (phase: Phase, name: Name) => {
      const key = `${phase}/${name}`;
      if (!cells.has(key)) cells.set(key, { runs: [] });
      return cells.get(key)!;
    };
    for (let run = 0; run < runs; run++) {
      for (const phase of PHASES) {
        await admin(server, 'PUT', `/imposters/${bPort}/stubs`, { stubs: B_STUBS[phase] });
        const loaded: Name[] = phase === 'alone' ? ['A', 'C'] : ['A', 'B', 'C'];
        const results = await measurePhase(urls, loaded, pin.wrk);
        for (const [name, result] of results) cell(phase, name).runs.push(result);
        const figures = [...results].map(([name, r]) => `${name} ${Math.round(r.requestsPerSecond)}`).join(', ');
        process.stderr.write(`bench: run ${run + 1}/${runs} ${phase}: ${figures} req/s\n`);
      }
    }

    const lines = [
      'fault isolation: neighbours A and C while B is loaded with and without faults',
      `  load: one wrk -t1 -c${CONNECTIONS} per loaded imposter, all at once, ${duration}s after ${WARMUP_SECONDS}s warm-up; median of ${runs} runs`,
      `  pinning: ${pinned ? 'svc on core 0, every wrk on core 1 (taskset)' : 'none (taskset not found)'}`,
      '  B faulty: latency p=0.2 5-50 ms, tcp reset p=0.05, error 503 p=0.2; B resets: tcp reset p=0.3, error 503 p=0.3',
      '  every response keep-alive; a neighbour passes when it keeps at least 90% of its figure beside fault-free B',
      `  svc: ${command}; node ${process.version}`,
      '',
      '| phase | A req/s | C req/s | B req/s (answered + faulted) | B resets and 503s | total req/s |',
      '|---|---|---|---|---|---|',
      ...PHASES.map((phase) => {
        const b = cells.get(`${phase}/B`);
        const total = (['A', 'B', 'C'] as const).reduce(
          (sum, name) => sum + (cells.has(`${phase}/${name}`) ? summarize(cell(phase, name)).requestsPerSecond : 0),
          0,
        );
        return `| ${phase} | ${rps(cells.get(`${phase}/A`))} | ${rps(cells.get(`${phase}/C`))} | ${rps(b)} | ${b ? summarize(b).errors.toLocaleString('en-US') : '-'} | ${Math.round(total).toLocaleString('en-US')} |`;
      }),
      '',
    ];
    let pass = true;
    for (const phase of FAULTY_PHASES) {
      for (const name of ['A', 'C'] as const) {
        const percent = pairedPercent(cell(phase, name), cell('plain', name));
        const ok = percent >= THRESHOLD_PERCENT;
        pass &&= ok;
        const idle = pairedPercent(cell(phase, name), cell('alone', name));
        lines.push(
          `${name} beside B ${phase}: ${percent.toFixed(1)}% of its figure beside fault-free B (target >= ${THRESHOLD_PERCENT}%) ${ok ? 'PASS' : 'FAIL'}; ${idle.toFixed(1)}% of its figure with B idle`,
        );
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    if (!pass) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});

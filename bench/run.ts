/**
 * `npm run bench`: svc vs mountebank 2.9.1 and WireMock 3.13.2 (where it can express the scenario: wiremock.ts)
 * side by side, plus a bare node:net ceiling, and svc
 * `--runtime per-core` against svc single on the scenarios marked `perCore` (issue 13). Every server's
 * CPU time per request (all its threads, from /proc) is measured next to req/s: on a 2-core machine
 * wrk takes one core, so per-core can only show what each request costs, not more throughput.
 *
 * Env: BENCH_DURATION (seconds per measurement, default 5), BENCH_RUNS (default 3; the median is
 * printed), BENCH_WARMUP (seconds, default 1), BENCH_ONLY=a,b (scenario ids), BENCH_WORKERS (engine
 * threads of the per-core server, default 2), BENCH_SVC_CMD (see processes.ts; no per-core rows then),
 * BENCH_WIREMOCK=0 (no WireMock column), BENCH_WIREMOCK_WARMUP (seconds of JIT warm-up per scenario, default 5).
 * Runs are interleaved (each scenario: svc, per-core, mountebank, svc, ...) so drift from other load
 * on the machine hits every side alike.
 */
import { http, type RunningServer } from '../test/support/servers.js';
import { parseExposition } from '../test/support/prom-text.js';
import { cpuTime } from './cpu.js';
import { pinning, startCeiling, startMountebankServer, startSvcServer } from './processes.js';
import { scenarios, type BenchRequest, type Scenario } from './scenarios.js';
import { sections } from './sections.js';
import { renderPerCoreTable, renderTable, renderTargets, summarize, type Cell, type Measurement, type Row, type Target } from './table.js';
import { envInteger } from './env.js';
import { ensureWrk, hasTaskset, runWrk } from './wrk.js';
import { loadMappings, startWireMock, WIREMOCK_VERSION, wiremockUnavailable } from './wiremock.js';

const CONNECTIONS = 50;
const THREADS = 1;

const duration = envInteger('BENCH_DURATION', 5);
const runs = envInteger('BENCH_RUNS', 3);
const warmup = envInteger('BENCH_WARMUP', 1, 0);
const wiremockWarmup = envInteger('BENCH_WIREMOCK_WARMUP', 5, 0);
const workers = envInteger('BENCH_WORKERS', 2);
const only = process.env.BENCH_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const ceilingWanted = !only || only.includes('e');
const selected = scenarios.filter((s) => !only || only.includes(s.id));
/** Scenario h (close mode) is held to a node:net server that closes after each response. */
const closeCeilingWanted = selected.some((s) => s.id === 'h');
const selectedSections = sections.filter((s) => !only || only.includes(s.id));
if (only) {
  const known = [...scenarios.map((s) => s.id), 'e', ...sections.map((s) => s.id)];
  const unknown = only.filter((id) => !known.includes(id));
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown scenario ${unknown.join(', ')}; known: ${known.join(', ')}`);
}

const servers: RunningServer[] = [];
let stopping: Promise<void> | undefined;
const stopAll = () => (stopping ??= Promise.all(servers.map((s) => s.stop())).then(() => undefined));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping servers\n`);
    void stopAll().finally(() => process.exit(130));
  });
}

async function track<T extends RunningServer>(start: Promise<T>): Promise<T> {
  const server = await start;
  servers.push(server);
  return server;
}

async function createImposter(server: RunningServer, scenario: Scenario, upstream: string | undefined): Promise<number> {
  const json = JSON.stringify(scenario.imposter);
  const res = await http('POST', `http://127.0.0.1:${server.adminPort}/imposters`, {
    headers: { 'content-type': 'application/json' },
    body: upstream === undefined ? json : json.replaceAll('{upstream}', upstream),
  });
  if (res.status !== 201) throw new Error(`(${scenario.id}) imposter refused with ${res.status}: ${res.body.slice(0, 500)}`);
  const port = (JSON.parse(res.body) as { port?: unknown }).port;
  if (typeof port !== 'number') throw new Error(`(${scenario.id}) created imposter has no port: ${res.body.slice(0, 500)}`);
  return port;
}

/** One request outside wrk: a scenario that answers the wrong stub must not be benchmarked. */
async function check(url: string, request: BenchRequest, expectBody: string, who: string): Promise<void> {
  const res = await http(request.method, `${url}${request.path}`, { headers: request.headers, body: request.body });
  if (res.status !== 200 || res.body !== expectBody) {
    throw new Error(`${who}: expected 200 «${expectBody}», got ${res.status} «${res.body.slice(0, 200)}»`);
  }
}

/** One wrk run after a warm-up, with the CPU seconds the server (`pid`, all threads) spent during it. */
async function measure(url: string, request: BenchRequest, wrkPin: string[], pid: number | undefined): Promise<Measurement> {
  const base = { url, request, connections: CONNECTIONS, threads: THREADS, wrapper: wrkPin };
  if (warmup > 0) await runWrk({ ...base, seconds: warmup });
  const before = cpuTime(pid);
  const result = await runWrk({ ...base, seconds: duration });
  const after = cpuTime(pid);
  if (!before || !after) return result;
  return { ...result, cpuSeconds: after.all - before.all, mainCpuSeconds: after.main - before.main };
}

/** Connections each engine thread accepted (svc_accepted_connections_total by worker slot). */
async function acceptedBySlot(metricsPort: number): Promise<Map<string, number>> {
  const res = await http('GET', `http://127.0.0.1:${metricsPort}/metrics`);
  const family = parseExposition(res.body).get('svc_accepted_connections_total');
  return new Map((family?.samples ?? []).map((s) => [s.labels.worker ?? '?', s.value]));
}

async function main(): Promise<void> {
  ensureWrk();
  const pinned = hasTaskset();
  const pin = pinning(pinned);

  const svc = await startSvcServer(pin);
  servers.push(svc.server);
  const perCoreWanted = !process.env.BENCH_SVC_CMD && selected.some((s) => s.perCore);
  const perCore = perCoreWanted ? await startSvcServer(pin, { mode: 'per-core', workers }) : undefined;
  if (perCore) servers.push(perCore.server);
  const mb = await track(startMountebankServer(pin));
  const wiremockWanted = selected.some((s) => s.wiremock) || selectedSections.some((s) => s.wiremock);
  const wmAbsent = wiremockWanted ? wiremockUnavailable() : 'no selected row needs it';
  const wm = wmAbsent ? undefined : await track(startWireMock(pin));
  const ceiling = ceilingWanted ? await track(startCeiling(pin)) : undefined;
  const closeCeiling = closeCeilingWanted ? await track(startCeiling(pin, 'bare-close')) : undefined;
  // The proxies' origin runs beside wrk, so that the servers' core serves only the servers.
  const origin = selected.some((s) => s.upstream) ? await track(startCeiling({ server: pin.wrk, wrk: pin.wrk }, 'bare-keep-alive')) : undefined;
  const upstream = origin && `http://127.0.0.1:${origin.adminPort}`;

  process.stdout.write(
    [
      `svc vs mountebank 2.9.1 and WireMock ${WIREMOCK_VERSION}`,
      `  load: wrk -t${THREADS} -c${CONNECTIONS} -d${duration}s after a ${warmup}s warm-up; median of ${runs} run(s) per cell, runs interleaved`,
      `  pinning: ${pinned ? 'servers on core 0, wrk on core 1 (taskset)' : 'none (taskset not found)'}`,
      "  every stub response but (h)'s sends `Connection: keep-alive` (mountebank closes after each response by default; (h) measures that)",
      `  svc: ${svc.command}`,
      ...(perCore
        ? [`  svc per-core: ${perCore.command}`, '    pinned like svc (wrk needs the other core), so its req/s cannot beat single here: compare CPU/req']
        : []),
      "  CPU/req: the server's utime+stime over all threads (/proc/<pid>/stat) during the measured run / requests; main thread: /proc/<pid>/task/<pid>/stat",
      '  mountebank: node_modules/mountebank/bin/mb --loglevel warn (no per-request log lines)',
      wm
        ? `  WireMock: java -jar wiremock-standalone-${WIREMOCK_VERSION}.jar --no-request-journal, pinned like svc; ${wiremockWarmup}s extra JIT warm-up per scenario; '-' where it cannot express the scenario (scripts)`
        : `  WireMock: not run (${wmAbsent})`,
      `  node ${process.version}`,
      '',
    ].join('\n') + '\n',
  );

  const rows: Row[] = [];
  const errorNotes: string[] = [];
  let ceilingCell: Cell | undefined;
  let closeCeilingCell: Cell | undefined;
  if (ceiling) {
    const url = `http://127.0.0.1:${ceiling.adminPort}`;
    const request: BenchRequest = { method: 'GET', path: '/' };
    await check(url, request, 'hello', 'ceiling');
    ceilingCell = { runs: [] };
    for (let run = 0; run < runs; run++) ceilingCell.runs.push(await measure(url, request, pin.wrk, ceiling.pid));
    rows.push({ label: '(e) ceiling: bare node:net hello-world', svc: ceilingCell });
    process.stderr.write('bench: (e) done\n');
  }

  for (const scenario of selected) {
    const sides = [
      { name: 'svc', server: svc.server, cell: { runs: [] } as Cell },
      ...(perCore && scenario.perCore ? [{ name: 'svc per-core', server: perCore.server, cell: { runs: [] } as Cell }] : []),
      ...(scenario.svcOnly ? [] : [{ name: 'mountebank', server: mb, cell: { runs: [] } as Cell }]),
      ...(wm && scenario.wiremock ? [{ name: 'WireMock', server: wm, cell: { runs: [] } as Cell }] : []),
      // Close mode's ceiling runs interleaved with svc and mountebank: its ratio is the target.
      ...(closeCeiling && scenario.id === 'h' ? [{ name: 'close ceiling', server: closeCeiling, cell: { runs: [] } as Cell }] : []),
    ];
    const cellOf = (name: string) => sides.find((s) => s.name === name)?.cell;
    const urls: string[] = [];
    for (const side of sides) {
      let port: number;
      if (side.name === 'close ceiling') port = side.server.adminPort;
      else if (side.name === 'WireMock') {
        await loadMappings(side.server, scenario.wiremock!);
        port = side.server.adminPort;
      } else port = await createImposter(side.server, scenario, scenario.upstream ? upstream : undefined);
      const url = `http://127.0.0.1:${port}`;
      await check(url, scenario.request, scenario.expectBody, `(${scenario.id}) ${side.name}`);
      if (side.name === 'WireMock' && wiremockWarmup > 0) {
        await runWrk({ url, request: scenario.request, connections: CONNECTIONS, threads: THREADS, wrapper: pin.wrk, seconds: wiremockWarmup });
      }
      urls.push(url);
    }
    for (let run = 0; run < runs; run++) {
      for (const [i, side] of sides.entries()) side.cell.runs.push(await measure(urls[i]!, scenario.request, pin.wrk, side.server.pid));
    }
    for (const side of sides) {
      const errors = summarize(side.cell).errors;
      if (errors) errorNotes.push(`(${scenario.id}) ${side.name}: ${errors} socket errors or non-2xx/3xx responses`);
    }
    const closeSide = cellOf('close ceiling');
    if (closeSide) {
      closeCeilingCell = closeSide;
      rows.push({ label: '(e2) ceiling: bare node:net, close after each response', svc: closeSide });
    }
    rows.push({
      label: `(${scenario.id}) ${scenario.title}`,
      svc: cellOf('svc'),
      mb: cellOf('mountebank'),
      wm: cellOf('WireMock'),
      perCore: cellOf('svc per-core'),
    });
    process.stderr.write(`bench: (${scenario.id}) done\n`);
  }

  if (rows.length) process.stdout.write(`${renderTable(rows, ceilingCell && summarize(ceilingCell))}\n`);
  if (perCore?.metricsPort !== undefined && rows.some((r) => r.perCore)) {
    process.stdout.write(`\nsvc single vs per-core with ${workers} engine threads, same imposter JSON\n${renderPerCoreTable(rows)}\n`);
    process.stdout.write(`${perCoreNotes(rows, await acceptedBySlot(perCore.metricsPort))}\n`);
  }
  if (errorNotes.length) process.stdout.write(`\nerrors:\n  ${errorNotes.join('\n  ')}\n`);
  const targets = targetsFor(rows, ceilingCell, closeCeilingCell);
  if (targets.length) process.stdout.write(`\ntargets (issues 2, 13 and 19):\n${renderTargets(targets)}\n`);
  for (const section of selectedSections) {
    process.stdout.write(`\n(${section.id}) ${section.title}\n${await section.run({ svc: svc.server, mb, wm })}\n`);
    process.stderr.write(`bench: (${section.id}) done\n`);
  }
}

/**
 * How the per-core server's engine threads shared the connections, and what its CPU per request says
 * of a bigger machine: N cores (load generator elsewhere) answer at most N * 1e6 / (CPU µs per request)
 * req/s, and no more than 1e6 / (main thread µs per request) while the main thread's share does not
 * shrink as engine threads are added (work every request needs from it: forwarding, the journal).
 */
function perCoreNotes(rows: Row[], slots: Map<string, number>): string {
  const split = [...slots]
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([slot, n]) => `thread ${slot}: ${n}`)
    .join(', ');
  const busy = [...slots.values()].filter((n) => n > 0).length;
  const lines = [`  connections accepted per engine thread (svc_accepted_connections_total): ${split || 'none reported'}`];
  if (busy < 2) lines.push('  WARNING: one engine thread accepted every connection: this build does not serve per-core');
  const count = (n: number) => Math.round(n).toLocaleString('en-US');
  for (const row of rows) {
    const summary = row.perCore && summarize(row.perCore);
    if (!summary?.cpuMicrosPerRequest || !summary.mainCpuMicrosPerRequest) continue;
    const share = summary.mainCpuMicrosPerRequest / summary.cpuMicrosPerRequest;
    lines.push(
      `  ${row.label}: main thread ${(100 * share).toFixed(0)}% of the CPU; 16 cores: at most ~${count((16 * 1e6) / summary.cpuMicrosPerRequest)} req/s`
        + ` if every thread carries an even share, ~${count(1e6 / summary.mainCpuMicrosPerRequest)} req/s if the main thread's part stays as measured`,
    );
  }
  return lines.join('\n');
}

function targetsFor(rows: Row[], ceilingCell: Cell | undefined, closeCeilingCell: Cell | undefined): Target[] {
  const rps = (id: string, side: 'svc' | 'mb') => {
    const cell = rows.find((r) => r.label.startsWith(`(${id})`))?.[side];
    return cell && summarize(cell).requestsPerSecond;
  };
  const targets: Target[] = [];
  const [a, b, c] = [rps('a', 'svc'), rps('b', 'svc'), rps('c', 'svc')];
  const ceilingRps = ceilingCell && summarize(ceilingCell).requestsPerSecond;
  if (a && ceilingRps) targets.push({ label: '(a) vs ceiling', value: (100 * a) / ceilingRps, threshold: 85, unit: '%' });
  if (a && b) targets.push({ label: '(b) vs (a)', value: (100 * b) / a, threshold: 70, unit: '%' });
  for (const [id, value] of [
    ['b', b],
    ['c', c],
  ] as const) {
    const mbRps = rps(id, 'mb');
    if (value && mbRps) targets.push({ label: `(${id}) vs mountebank`, value: value / mbRps, threshold: 100, unit: 'x' });
  }
  // Issue 19 item 6: close mode costs at most 1.2x the CPU per request of node:net closing after each response.
  const closeSvc = rows.find((r) => r.label.startsWith('(h)'))?.svc;
  const closeCpu = closeSvc && summarize(closeSvc).cpuMicrosPerRequest;
  const closeCeilingCpu = closeCeilingCell && summarize(closeCeilingCell).cpuMicrosPerRequest;
  if (closeCpu && closeCeilingCpu)
    targets.push({ label: '(h) close mode CPU/req vs (e2)', value: closeCpu / closeCeilingCpu, threshold: 1.2, unit: 'x', atMost: true });
  // Issue 19 item 2: CPU per request against the static stub (a); xpath against WireMock 3.13's 284 µs measured in the issue.
  const cpu = (id: string) => {
    const cell = rows.find((r) => r.label.startsWith(`(${id})`))?.svc;
    return cell && summarize(cell).cpuMicrosPerRequest;
  };
  const wmCpu = (id: string) => {
    const cell = rows.find((r) => r.label.startsWith(`(${id})`))?.wm;
    return cell && summarize(cell).cpuMicrosPerRequest;
  };
  const staticCpu = cpu('a');
  if (staticCpu && cpu('d')) targets.push({ label: '(d) jsonpath CPU/req vs (a)', value: cpu('d')! / staticCpu, threshold: 2, unit: 'x', atMost: true });
  if (staticCpu && cpu('c')) targets.push({ label: '(c) last regex CPU/req vs (a)', value: cpu('c')! / staticCpu, threshold: 1.25, unit: 'x', atMost: true });
  // Items 2: jsonpath and xpath cost at least 3x less CPU than WireMock's, measured in the same run (else the 284 µs).
  for (const [id, what] of [
    ['d', 'jsonpath'],
    ['x', 'xpath'],
  ] as const) {
    const ours = cpu(id);
    const theirs = wmCpu(id);
    if (ours && theirs) targets.push({ label: `(${id}) ${what}: WireMock CPU/req / svc's`, value: theirs / ours, threshold: 3, unit: 'x' });
    else if (ours && id === 'x')
      targets.push({ label: '(x) xpath CPU/req, µs (WireMock not run: issue figure 284 / 3)', value: ours, threshold: 284 / 3, unit: 'µs', atMost: true });
  }
  // Issue 19 item 3: scripts cost at least 3x less CPU per request than mountebank's inject/decorate, with a lower p99.
  for (const id of ['f', 'g']) {
    const row = rows.find((r) => r.label.startsWith(`(${id})`));
    const svc = row?.svc && summarize(row.svc);
    const mb = row?.mb && summarize(row.mb);
    if (!svc?.cpuMicrosPerRequest || !mb?.cpuMicrosPerRequest) continue;
    targets.push({ label: `(${id}) mountebank CPU/req / svc's`, value: mb.cpuMicrosPerRequest / svc.cpuMicrosPerRequest, threshold: 3, unit: 'x' });
    if (mb.p99Ms > 0) targets.push({ label: `(${id}) svc p99 / mountebank's`, value: svc.p99Ms / mb.p99Ms, threshold: 1, unit: 'x', atMost: true });
  }
  for (const row of rows) {
    if (!row.perCore || !row.svc) continue;
    const single = summarize(row.svc).cpuMicrosPerRequest;
    const perCore = summarize(row.perCore).cpuMicrosPerRequest;
    if (single && perCore) {
      targets.push({ label: `${row.label.slice(0, 3)} per-core CPU/req vs single`, value: perCore / single, threshold: 1.15, unit: 'x', atMost: true });
    }
  }
  return targets;
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => stopAll());

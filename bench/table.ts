/** Renders the side-by-side tables, medians over runs, and the issues' targets. */
import type { WrkResult } from './wrk.js';

/** One wrk run plus the server's CPU seconds over it, all threads and the main one, when /proc could be read. */
export interface Measurement extends WrkResult {
  cpuSeconds?: number;
  mainCpuSeconds?: number;
}

export interface Cell {
  runs: Measurement[];
}

export interface Row {
  label: string;
  svc?: Cell;
  mb?: Cell;
  /** WireMock, where it can express the scenario. */
  wm?: Cell;
  /** svc under `--runtime per-core`, on the same imposter JSON. */
  perCore?: Cell;
}

export interface Summary {
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
  /** Median over runs of the server's CPU microseconds per answered request. */
  cpuMicrosPerRequest?: number;
  /** The same for its main thread alone. */
  mainCpuMicrosPerRequest?: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median microseconds per request of one CPU figure, undefined unless every run has it. */
function perRequest(cell: Cell, seconds: (m: Measurement) => number | undefined): number | undefined {
  const values = cell.runs.flatMap((r) => {
    const s = seconds(r);
    return s !== undefined && r.requests > 0 ? [(1e6 * s) / r.requests] : [];
  });
  return values.length === cell.runs.length && values.length > 0 ? median(values) : undefined;
}

/** Medians of req/s, p99 and CPU per request taken separately; errors summed over all runs. */
export function summarize(cell: Cell): Summary {
  return {
    requestsPerSecond: median(cell.runs.map((r) => r.requestsPerSecond)),
    p99Ms: median(cell.runs.map((r) => r.p99Ms)),
    errors: cell.runs.reduce((sum, r) => sum + r.errors, 0),
    cpuMicrosPerRequest: perRequest(cell, (r) => r.cpuSeconds),
    mainCpuMicrosPerRequest: perRequest(cell, (r) => r.mainCpuSeconds),
  };
}

const rate = (s?: Summary) => (s ? Math.round(s.requestsPerSecond).toLocaleString('en-US') : '-');
const latency = (s?: Summary) => (s ? `${s.p99Ms < 10 ? s.p99Ms.toFixed(2) : s.p99Ms.toFixed(0)} ms` : '-');
const micros = (value?: number) => (value !== undefined ? `${value.toFixed(1)} µs` : '-');
const cpu = (s?: Summary) => micros(s?.cpuMicrosPerRequest);
const ratio = (a?: Summary, b?: Summary) => (a && b ? `${(a.requestsPerSecond / b.requestsPerSecond).toFixed(1)}x` : '-');
const percent = (a?: Summary, b?: Summary) => (a && b ? `${((100 * a.requestsPerSecond) / b.requestsPerSecond).toFixed(1)}%` : '-');
const cpuRatio = (a?: Summary, b?: Summary) =>
  a?.cpuMicrosPerRequest !== undefined && b?.cpuMicrosPerRequest ? `${(a.cpuMicrosPerRequest / b.cpuMicrosPerRequest).toFixed(2)}x` : '-';

function layout(header: string[], lines: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)].join('\n');
}

export function renderTable(rows: Row[], ceiling: Summary | undefined): string {
  const header = ['scenario', 'svc req/s', 'svc p99', 'svc CPU/req', 'mb req/s', 'mb p99', 'mb CPU/req', 'wm req/s', 'wm CPU/req', 'svc/mb', 'svc/ceiling'];
  const lines = rows.map((row) => {
    const svc = row.svc && summarize(row.svc);
    const mb = row.mb && summarize(row.mb);
    const wm = row.wm && summarize(row.wm);
    return [row.label, rate(svc), latency(svc), cpu(svc), rate(mb), latency(mb), cpu(mb), rate(wm), cpu(wm), ratio(svc, mb), percent(svc, ceiling)];
  });
  return layout(header, lines);
}

/** single vs per-core on the rows that have both: throughput, and the server CPU each request cost. */
export function renderPerCoreTable(rows: Row[]): string {
  const header = [
    'scenario',
    'single req/s',
    'single CPU/req',
    'per-core req/s',
    'per-core p99',
    'per-core CPU/req',
    'its main thread',
    'CPU/req per-core/single',
  ];
  const lines = rows.flatMap((row) => {
    if (!row.perCore || !row.svc) return [];
    const single = summarize(row.svc);
    const perCore = summarize(row.perCore);
    return [
      [row.label, rate(single), cpu(single), rate(perCore), latency(perCore), cpu(perCore), micros(perCore.mainCpuMicrosPerRequest), cpuRatio(perCore, single)],
    ];
  });
  return layout(header, lines);
}

export interface Target {
  label: string;
  /** Achieved value and threshold, in the same unit. */
  value: number;
  threshold: number;
  unit: '%' | 'x' | 'µs';
  /** The value passes at or below the threshold (a cost) rather than at or above it. */
  atMost?: boolean;
}

export function renderTargets(targets: Target[]): string {
  return targets
    .map((t) => {
      const shown = t.unit === 'x' ? `${t.value.toFixed(t.atMost ? 2 : 1)}x` : `${t.value.toFixed(1)}${t.unit === '%' ? '%' : ' µs'}`;
      const pass = t.atMost ? t.value <= t.threshold : t.value >= t.threshold;
      return `  ${pass ? 'PASS' : 'FAIL'}  ${t.label}: ${shown} (target ${t.atMost ? '≤' : '≥'} ${Number(t.threshold.toFixed(2))}${t.unit === 'µs' ? ' µs' : t.unit})`;
    })
    .join('\n');
}

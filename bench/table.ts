/** Renders the side-by-side table, medians over runs, and the throughput targets. */
import type { WrkResult } from './wrk.js';

export interface Cell {
  runs: WrkResult[];
}

export interface Row {
  label: string;
  svc?: Cell;
  mb?: Cell;
}

export interface Summary {
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Medians of req/s and of p99 taken separately; errors summed over all runs. */
export function summarize(cell: Cell): Summary {
  return {
    requestsPerSecond: median(cell.runs.map((r) => r.requestsPerSecond)),
    p99Ms: median(cell.runs.map((r) => r.p99Ms)),
    errors: cell.runs.reduce((sum, r) => sum + r.errors, 0),
  };
}

const rate = (s?: Summary) => (s ? Math.round(s.requestsPerSecond).toLocaleString('en-US') : '-');
const latency = (s?: Summary) => (s ? `${s.p99Ms < 10 ? s.p99Ms.toFixed(2) : s.p99Ms.toFixed(0)} ms` : '-');
const ratio = (a?: Summary, b?: Summary) => (a && b ? `${(a.requestsPerSecond / b.requestsPerSecond).toFixed(1)}x` : '-');
const percent = (a?: Summary, b?: Summary) => (a && b ? `${((100 * a.requestsPerSecond) / b.requestsPerSecond).toFixed(1)}%` : '-');

export function renderTable(rows: Row[], ceiling: Summary | undefined): string {
  const header = ['scenario', 'svc req/s', 'svc p99', 'mb req/s', 'mb p99', 'svc/mb', 'svc/ceiling'];
  const lines = rows.map((row) => {
    const svc = row.svc && summarize(row.svc);
    const mb = row.mb && summarize(row.mb);
    return [row.label, rate(svc), latency(svc), rate(mb), latency(mb), ratio(svc, mb), percent(svc, ceiling)];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)].join('\n');
}

export interface Target {
  label: string;
  /** Achieved value and threshold, in the same unit. */
  value: number;
  threshold: number;
  unit: '%' | 'x';
}

export function renderTargets(targets: Target[]): string {
  return targets
    .map((t) => {
      const shown = t.unit === '%' ? `${t.value.toFixed(1)}%` : `${t.value.toFixed(1)}x`;
      return `  ${t.value >= t.threshold ? 'PASS' : 'FAIL'}  ${t.label}: ${shown} (target ≥ ${t.threshold}${t.unit})`;
    })
    .join('\n');
}

/**
 * Bench sections beyond wrk's one-request scenarios (issue 19): each measures svc and mountebank its
 * own way and prints its own table, with the target it is held to. `BENCH_ONLY` names them by id.
 */
import type { RunningServer } from '../test/helpers/servers.js';
import { cpuMsPerPost, EDIT_SIZES, EDIT_TARGETS } from './admin-edits.js';
import { envInteger } from './env.js';

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
];

/**
 * Issue 19 item 1 alone: the `edits` section's measurement (admin-edits.ts: server CPU per POST, PUT and
 * DELETE of one stub, reply included) for svc only, over a curve of stub counts, without mountebank
 * and WireMock. With BASELINE_DIST (another build's `dist` folder, e.g. a copy of main's) both builds
 * run in turns, each on a fresh server, so load on the machine hits both alike.
 *
 * `npx tsc -p tsconfig.json && node --import tsx bench/edits-curve.ts`
 * Env: EDIT_SIZES (default 100,1000,10000), BENCH_SVC_EDITS (calls of each kind per cell, default 100, as
 * `npm run bench` gives svc), BENCH_RUNS (fresh servers per build, default 3; the median is printed), BASELINE_DIST.
 */
import { cpuMsPerPost, type EditCosts } from './admin-edits.js';
import { envInteger } from './env.js';
import { hasTaskset } from './wrk.js';
import { pinning, startSvcServer } from './processes.js';

const sizes = (process.env.EDIT_SIZES ?? '100,1000,10000').split(',').map(Number);
const edits = envInteger('BENCH_SVC_EDITS', 100);
const runs = envInteger('BENCH_RUNS', 3);
const builds: Array<[string, string | undefined]> = [['this build', undefined]];
if (process.env.BASELINE_DIST) builds.push(['baseline', process.env.BASELINE_DIST]);
const pin = pinning(hasTaskset());

const cells = new Map<string, EditCosts[]>();
for (let run = 0; run < runs; run++) {
  for (const [name, dist] of run % 2 === 0 ? builds : [...builds].reverse()) {
    const { server } = await startSvcServer(pin, { mode: 'single' }, dist);
    try {
      for (const stubs of sizes) {
        const key = `${stubs}\t${name}`;
        cells.set(key, [...(cells.get(key) ?? []), await cpuMsPerPost(server, stubs, edits)]);
      }
    } finally {
      await server.stop();
    }
  }
}

const median = (values: Array<number | undefined>): string => {
  const known = values.filter((v): v is number => v !== undefined).sort((a, b) => a - b);
  return known.length === 0 ? '-' : `${known[known.length >> 1]!.toFixed(2)} ms`;
};
console.log(`stubs\tbuild\tPOST\tPUT\tDELETE   (server CPU per call, median of ${runs} servers, ${edits} calls each)`);
for (const [key, costs] of cells) {
  console.log(`${key}\t${median(costs.map((c) => c.post))}\t${median(costs.map((c) => c.put))}\t${median(costs.map((c) => c.del))}`);
}

/**
 * Run as its own process by test/tools/cli/heap-reclaim.test.ts: grows this process's V8 heap with a
 * live set, drops it, waits (quiet) for HeapReclaim and prints what it saw as JSON.
 */
import { HeapReclaim, type ReclaimReport } from '../../app/index.js';

const reports: ReclaimReport[] = [];
const reclaim = new HeapReclaim({ checkMs: 200, onReclaim: (report) => reports.push(report) });
// A live set grown to 280 MB, then dropped: a size, not a time, so a slow box grows the heap as far as
// a fast one (a timed burst of short-lived garbage grew it 95 MB in 20 s on Node 20 on one core).
let keep: Array<{ values: number[]; text: string }> = [];
const until = Date.now() + 30_000;
while (process.memoryUsage().heapUsed < 280 * 1048576 && Date.now() < until) {
  for (let i = 0; i < 10_000; i++) keep.push({ values: new Array(20).fill(i), text: `x${i}` });
}
keep = [];
const grown = process.memoryUsage();
for (let waited = 0; waited < 6000 && reports.length === 0; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
reclaim.stop();
const after = process.memoryUsage();
console.log(JSON.stringify({ reports, grown: { rss: grown.rss, heapTotal: grown.heapTotal }, after: { rss: after.rss, heapTotal: after.heapTotal } }));

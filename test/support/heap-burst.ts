/**
 * Run as its own process by test/tools/cli/heap-reclaim.test.ts: grows this process's V8 heap with a
 * burst of short-lived objects, drops them, waits (quiet) for HeapReclaim and prints what it saw as JSON.
 */
import { HeapReclaim, type ReclaimReport } from '../../app/index.js';

const reports: ReclaimReport[] = [];
const reclaim = new HeapReclaim({ checkMs: 200, onReclaim: (report) => reports.push(report) });
let keep: Array<{ values: number[]; text: string }> = [];
const until = Date.now() + 1500;
while (Date.now() < until) {
  for (let i = 0; i < 1000; i++) keep.push({ values: new Array(20).fill(i), text: `x${i}` });
  if (keep.length > 200_000) keep = keep.slice(100_000);
}
keep = [];
const grown = process.memoryUsage();
for (let waited = 0; waited < 6000 && reports.length === 0; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
reclaim.stop();
const after = process.memoryUsage();
console.log(JSON.stringify({ reports, grown: { rss: grown.rss, heapTotal: grown.heapTotal }, after: { rss: after.rss, heapTotal: after.heapTotal } }));

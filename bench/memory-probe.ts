/**
 * Issue 19 item 5, run as its own process with --expose-gc (bench/sections.ts spawns it): the memory
 * one imposter of 10 path stubs holds after GC, from 1,000 such imposters on one manager (admin calls,
 * not recording). Prints one JSON line: heap + external and RSS per imposter, in bytes.
 */
import { ImposterManager } from '../engine/manager/index.js';
import { silentLogger } from '../engine/log/index.js';

const count = Number(process.argv[2] ?? 1000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function settled(): NodeJS.MemoryUsage {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage();
}

const imposterJson = (n: number) => ({
  protocol: 'http',
  stubs: Array.from({ length: 10 }, (_, i) => ({
    predicates: [{ equals: { method: 'GET', path: `/i${n}/s${i}` } }],
    responses: [{ is: { statusCode: 200, headers: { 'Content-Type': 'text/plain' }, body: `imposter ${n} stub ${i}` } }],
  })),
});

const manager = new ImposterManager({ allowInjection: false, log: silentLogger, host: '127.0.0.1' });
// One imposter first, so code and lazily loaded modules are not counted against the thousand.
await manager.createImposter(imposterJson(-1));
const before = settled();
for (let n = 0; n < count; n++) await manager.createImposter(imposterJson(n));
const after = settled();
const heap = after.heapUsed + after.external - (before.heapUsed + before.external);
process.stdout.write(`${JSON.stringify({ imposters: count, heapPerImposter: heap / count, rssPerImposter: (after.rss - before.rss) / count })}\n`);
await manager.close();

/**
 * Issue 19 item 5, run as its own process with --expose-gc (bench/sections.ts spawns it): the memory
 * one imposter of 10 path stubs holds after GC, from 1,000 such imposters on one manager (admin calls,
 * not recording), on the build in dist/ (npm run bench compiles it first). Prints one JSON line: heap +
 * external and RSS per imposter, in bytes.
 */
import type * as Manager from '../engine/manager/index.js';
import type * as Log from '../engine/log/index.js';

// The build, as the bench's servers run it: tsx's transform names every function with defineProperty,
// which costs each closure a dictionary of properties (kilobytes per imposter) that svc itself never pays.
const { ImposterManager } = (await import(new URL('../dist/engine/manager/index.js', import.meta.url).href)) as typeof Manager;
const { silentLogger } = (await import(new URL('../dist/engine/log/index.js', import.meta.url).href)) as typeof Log;

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

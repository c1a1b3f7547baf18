/**
 * What matching rule 5 (spaces, scenario states) costs per request, without the network: CPU time of
 * `Imposter.handle()` with a fake sink, rounds interleaved so drift hits every cell alike.
 *   static   — one static `is` stub (no gates: the path every plain imposter takes)
 *   space    — the same stub behind a space stub of another flow (gated, no store access)
 *   scenario — the same stub behind a scenario stub (gated, in-memory state read per request)
 * Run: `node --import tsx bench/flow-gates.ts`
 * Env: BENCH_ROUNDS (default 9), BENCH_PER_ROUND (default 200000); medians printed.
 */
import { createLogger } from '../engine/log/index.js';
import { ImposterManager } from '../engine/manager/index.js';
import { envInteger } from './env.js';

const served = { responses: [{ is: { statusCode: 200, body: 'ok' } }] };
const cells: Record<string, unknown[]> = {
  static: [served],
  space: [{ space: 'someone-else', ...served }, served],
  scenario: [{ scenarioName: 's', requiredScenarioState: 'Elsewhere', ...served }, served],
};

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1]!;
}

async function main(): Promise<void> {
  const rounds = envInteger('BENCH_ROUNDS', 9);
  const perRound = envInteger('BENCH_PER_ROUND', 200_000);
  const log = createLogger({ level: 'error', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log, host: '127.0.0.1' });
  try {
    const wire = {
      method: 'GET', url: '/', httpVersion: '1.1' as const, rawHeaders: ['Host', 'localhost:8080', 'User-Agent', 'wrk', 'Accept', '*/*'],
      body: Buffer.alloc(0), remoteAddress: '127.0.0.1', remotePort: 50000,
    };
    const sink = { protocol: 'http1' as const, send() {}, reset() {}, closeEmpty() {}, writeRawAndClose() {} };
    const targets = await Promise.all(Object.entries(cells).map(async ([name, stubs]) => {
      const created = await manager.createImposter({ protocol: 'http', stubs });
      return { name, imposter: manager.get(created.port)! };
    }));
    const time = (imposter: (typeof targets)[number]['imposter']): number => {
      const before = process.cpuUsage();
      for (let i = 0; i < perRound; i += 1) imposter.handle(wire, sink);
      const used = process.cpuUsage(before);
      return ((used.user + used.system) * 1000) / perRound;
    };
    for (const { imposter } of targets) time(imposter);
    const results = new Map<string, number[]>(targets.map(({ name }) => [name, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (const { name, imposter } of targets) results.get(name)!.push(time(imposter));
    }
    const base = median(results.get('static')!);
    process.stdout.write(`in-process Imposter.handle(), fake sink, CPU time, median of ${rounds} rounds of ${perRound}\n`);
    for (const [name, values] of results) {
      const ns = median(values);
      process.stdout.write(`  ${name.padEnd(9)} ${ns.toFixed(0).padStart(5)} ns/request  (${name === 'static' ? 'baseline' : `+${(ns - base).toFixed(0)} ns`})\n`);
    }
  } finally {
    await manager.close();
  }
}

await main();

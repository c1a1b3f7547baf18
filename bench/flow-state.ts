/**
 * What `_svc.stateOps` cost per request, without the network: CPU time of `Imposter.handle()` with a
 * fake sink until every response is sent, rounds interleaved so drift hits every cell alike.
 *   static    — one static `is` stub on the noop store (the path every plain imposter takes)
 *   increment — the same stub with `_svc.stateOps: [{op: increment}]` on the in-memory store
 *   set+incr  — two ops (set a JSON value, increment) on the in-memory store
 * Run: `node --import tsx bench/flow-state.ts`
 * Env: BENCH_ROUNDS (default 9), BENCH_PER_ROUND (default 100000, a multiple of 100); medians printed.
 */
import { createLogger } from '../engine/log/index.js';
import { ImposterManager } from '../engine/manager/index.js';
import { envInteger } from './env.js';

const is = { is: { statusCode: 200, body: 'ok' } };
const cells: Record<string, unknown[]> = {
  static: [{ responses: [is] }],
  increment: [{ responses: [{ ...is, _svc: { stateOps: [{ op: 'increment', key: 'n' }] } }] }],
  'set+incr': [{ responses: [{ ...is, _svc: { stateOps: [{ op: 'set', key: 'last', value: { seen: true } }, { op: 'increment', key: 'n' }] } }] }],
};

const BATCH = 100;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1]!;
}

async function main(): Promise<void> {
  const rounds = envInteger('BENCH_ROUNDS', 9);
  const perRound = envInteger('BENCH_PER_ROUND', 100_000);
  const log = createLogger({ level: 'error', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log, host: '127.0.0.1' });
  try {
    const wire = {
      method: 'GET', url: '/', httpVersion: '1.1' as const, rawHeaders: ['Host', 'localhost:8080', 'User-Agent', 'wrk', 'Accept', '*/*'],
      body: Buffer.alloc(0), remoteAddress: '127.0.0.1', remotePort: 50000,
    };
    let sent = 0;
    const sink = { protocol: 'http1' as const, send() { sent += 1; }, reset() {}, closeEmpty() {}, writeRawAndClose() {} };
    const targets = await Promise.all(Object.entries(cells).map(async ([name, stubs]) => {
      const created = await manager.createImposter({ protocol: 'http', stubs });
      return { name, imposter: manager.get(created.port)! };
    }));
    const time = async (imposter: (typeof targets)[number]['imposter']): Promise<number> => {
      sent = 0;
      const before = process.cpuUsage();
      // In batches, as connections would arrive: a whole round in flight at once measures the GC instead.
      for (let i = 0; i < perRound; i += BATCH) {
        for (let j = 0; j < BATCH; j += 1) imposter.handle(wire, sink);
        while (sent < i + BATCH) await Promise.resolve();
      }
      const used = process.cpuUsage(before);
      return ((used.user + used.system) * 1000) / perRound;
    };
    for (const { imposter } of targets) await time(imposter);
    const results = new Map<string, number[]>(targets.map(({ name }) => [name, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (const { name, imposter } of targets) results.get(name)!.push(await time(imposter));
    }
    const base = median(results.get('static')!);
    process.stdout.write(`in-process Imposter.handle(), fake sink, CPU time, median of ${rounds} rounds of ${perRound}\n`);
    for (const [name, values] of results) {
      const ns = median(values);
      process.stdout.write(`  ${name.padEnd(10)} ${ns.toFixed(0).padStart(5)} ns/request  (${name === 'static' ? 'baseline' : `+${(ns - base).toFixed(0)} ns`})\n`);
    }
  } finally {
    await manager.close();
  }
}

await main();

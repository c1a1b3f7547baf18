/**
 * The in-process micro-bench both flow benches share: CPU time of `Imposter.handle()` per request
 * with a fake sink, for one imposter per cell, rounds interleaved so drift hits every cell alike.
 * The first cell is the baseline the others are compared with.
 */
import { createLogger } from '../engine/log/index.js';
import { ImposterManager } from '../engine/manager/index.js';
import { envInteger } from './env.js';

/** Requests handed over before waiting for their answers, as connections would arrive: a whole round in flight at once measures the GC instead. */
const BATCH = 100;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1]!;
}

export async function benchCells(cells: Record<string, unknown[]>, defaultPerRound: number): Promise<void> {
  const rounds = envInteger('BENCH_ROUNDS', 9);
  const perRound = Math.max(BATCH, Math.round(envInteger('BENCH_PER_ROUND', defaultPerRound) / BATCH) * BATCH);
  const log = createLogger({ level: 'error', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log, host: '127.0.0.1' });
  try {
    const wire = {
      method: 'GET',
      url: '/',
      httpVersion: '1.1' as const,
      rawHeaders: ['Host', 'localhost:8080', 'User-Agent', 'wrk', 'Accept', '*/*'],
      body: Buffer.alloc(0),
      remoteAddress: '127.0.0.1',
      remotePort: 50000,
    };
    let sent = 0;
    const sink = {
      protocol: 'http1' as const,
      send() {
        sent += 1;
      },
      reset() {},
      closeEmpty() {},
      writeRawAndClose() {},
    };
    const targets = await Promise.all(
      Object.entries(cells).map(async ([name, stubs]) => {
        const created = await manager.createImposter({ protocol: 'http', stubs });
        return { name, imposter: manager.get(created.port)! };
      }),
    );
    const time = async (imposter: (typeof targets)[number]['imposter']): Promise<number> => {
      sent = 0;
      const before = process.cpuUsage();
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
    const [baseline] = results.keys();
    const base = median(results.get(baseline!)!);
    const width = Math.max(...[...results.keys()].map((name) => name.length)) + 1;
    process.stdout.write(`in-process Imposter.handle(), fake sink, CPU time, median of ${rounds} rounds of ${perRound}\n`);
    for (const [name, values] of results) {
      const ns = median(values);
      process.stdout.write(
        `  ${name.padEnd(width)} ${ns.toFixed(0).padStart(5)} ns/request  (${name === baseline ? 'baseline' : `+${(ns - base).toFixed(0)} ns`})\n`,
      );
    }
  } finally {
    await manager.close();
  }
}

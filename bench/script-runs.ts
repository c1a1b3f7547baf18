/**
 * `node --import tsx bench/script-runs.ts`: what a `_svc.script` run costs on the script workers —
 * the worker round trip alone (`http(200)`), and each synchronous `ctx.state` call bridged to the
 * main thread's FlowStore (Atomics wake-up over the state port). Runs are sequential, so the figures
 * are latencies, not throughput. BENCH_RUNS (default 2000) runs per case.
 */
import { SvcScriptRunner, type ScriptRun } from '../engine/script/svc/index.js';
import { MemoryFlowStore } from '../engine/state/index.js';
import { envInteger } from './env.js';

const runs = envInteger('BENCH_RUNS', 2000);
const runner = new SvcScriptRunner({ log: () => undefined, workers: 1 });
const store = new MemoryFlowStore({ ttlSeconds: 300 });
const request = { method: 'GET', path: '/', query: {}, pathParams: {}, headers: {}, body: '' };

async function median(source: string): Promise<number> {
  const call: ScriptRun = { engine: 'rhai', scope: 1, source, placement: 'respond', request, flowId: 'bench', stub: {}, timeoutMs: 5000, store };
  for (let i = 0; i < 200; i++) await runner.run(call);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const outcome = await runner.run(call);
    times.push(performance.now() - started);
    if (!outcome.ok) throw new Error(outcome.message);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const base = await median('http(200)');
const ten = await median('for i in 0..10 { ctx.state.incr("n"); } http(200)');
console.log(`rhai run, no state:        median ${(base * 1000).toFixed(0)} µs`);
console.log(`rhai run, 10 state.incr:   median ${(ten * 1000).toFixed(0)} µs  (≈ ${(((ten - base) / 10) * 1000).toFixed(0)} µs per bridged call)`);
await runner.close();
await store.close();

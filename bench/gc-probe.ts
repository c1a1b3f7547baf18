/**
 * What the young-generation collections of svc's serving thread keep, for responses that leave the
 * request's turn (a `wait`, a fault latency, a decorate, an inject, a script), run as its own process
 * (bench/sections.ts spawns it, pinned like the servers): one manager from dist/ serves each imposter
 * while wrk loads it, and V8's GCProfiler records the heap spaces around every scavenge of the
 * measured run. A request's objects should die young; a WeakMap entry per fresh response header list,
 * and a Map of pending script calls keyed by growing ids, each once made V8 keep and promote nearly
 * every one. Prints one JSON line per imposter: requests, scavenges, the young generation's bytes per
 * request (what the serving thread allocates, roughly), and the share of them that survived (kept or
 * promoted) and that was promoted.
 */
import { GCProfiler } from 'node:v8';
import type * as Manager from '../engine/manager/index.js';
import type * as Log from '../engine/log/index.js';
import { runWrk } from './wrk.js';

// The build, as the bench's servers run it (memory-probe.ts says why not the sources through tsx).
const { ImposterManager } = (await import(new URL('../dist/engine/manager/index.js', import.meta.url).href)) as typeof Manager;
const { silentLogger } = (await import(new URL('../dist/engine/log/index.js', import.meta.url).href)) as typeof Log;

const seconds = Number(process.argv[2] ?? 5);
const wrapper = (process.argv[3] ?? '').split(' ').filter(Boolean);

const keepAlive = { Connection: 'keep-alive' };
const GC_IMPOSTERS = [
  // The reference: answered within the request's turn, its objects die before any scavenge.
  { id: 'a', title: 'static is stub', responses: [{ is: { body: 'hello', headers: keepAlive } }] },
  { id: 'w', title: 'wait behavior of 1 ms', responses: [{ is: { body: 'hello', headers: keepAlive }, _behaviors: { wait: 1 } }] },
  {
    id: 'l',
    title: '_svc.fault latency 1 ms, probability 0.5',
    responses: [{ is: { body: 'hello', headers: keepAlive }, _svc: { fault: { latency: { probability: 0.5, minMs: 1, maxMs: 1 } } } }],
  },
  {
    id: 'g',
    title: 'decorate behavior',
    responses: [{ is: { body: 'hello', headers: keepAlive }, _behaviors: { decorate: 'function (config) { config.response.body += config.request.path; }' } }],
  },
  {
    id: 'v',
    title: '_svc.script rhai using ctx.state',
    responses: [{ _svc: { script: { code: 'ctx.state.incr("n"); http(200, "counted").header("Connection", "keep-alive")' } } }],
  },
  {
    id: 'f',
    title: 'inject',
    responses: [{ inject: "function (config) { return { statusCode: 200, headers: { Connection: 'keep-alive' }, body: 'injected' }; }" }],
  },
];

interface SpaceStats {
  spaceName: string;
  spaceUsedSize: number;
}
interface GcStat {
  gcType: string;
  beforeGC: { heapSpaceStatistics: SpaceStats[] };
  afterGC: { heapSpaceStatistics: SpaceStats[] };
}

const used = (spaces: SpaceStats[], name: string) => spaces.find((s) => s.spaceName === name)?.spaceUsedSize ?? 0;

const manager = new ImposterManager({ allowInjection: true, log: silentLogger, host: '127.0.0.1' });
try {
  for (const imposter of GC_IMPOSTERS) {
    const created = await manager.createImposter({ protocol: 'http', stubs: [{ responses: imposter.responses }] });
    const run = { url: `http://127.0.0.1:${created.port}`, request: { method: 'GET', path: '/' }, connections: 50, threads: 1, wrapper };
    await runWrk({ ...run, seconds: 1 });
    const profiler = new GCProfiler();
    profiler.start();
    const result = await runWrk({ ...run, seconds });
    const stats = (profiler.stop()?.statistics ?? []) as GcStat[];
    let young = 0;
    let survived = 0;
    let promoted = 0;
    let scavenges = 0;
    for (const gc of stats) {
      if (gc.gcType !== 'Scavenge') continue;
      scavenges += 1;
      const before = gc.beforeGC.heapSpaceStatistics;
      const after = gc.afterGC.heapSpaceStatistics;
      const grown = Math.max(0, used(after, 'old_space') - used(before, 'old_space'));
      young += used(before, 'new_space');
      survived += used(after, 'new_space') + grown;
      promoted += grown;
    }
    process.stdout.write(
      `${JSON.stringify({ id: imposter.id, title: imposter.title, requests: result.requests, scavenges, youngPerRequest: young / result.requests, survived: survived / young, promoted: promoted / young })}\n`,
    );
    await manager.deleteImposter(created.port, {});
  }
} finally {
  await manager.close();
}

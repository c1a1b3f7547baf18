/**
 * The soak's script-bomb phase (issue 23 item 5): Rhai allocation bombs (string, array, map) and
 * inject/decorate results over the 64 MiB body cap, one at a time against the soaking server. For
 * each: RSS and fds before, at peak (sampled every 20 ms while it runs) and 5 s after (the issue's
 * figure). Holds when every bomb is refused (500 envelope), no Rhai bomb grows RSS by 256 MB (a
 * JavaScript one is bounded by its sandbox's 256 MiB heap, plus the copy the worker reads back), and
 * RSS is back within 20% of its value before the phase 5 s after each bomb. A grown script worker runs
 * V8's memory-reducing collection before it is replaced (engine/script/shared/worker-memory.ts):
 * without it, Node 24 unmapped some 40 MB of a replaced worker's pages only 8 s after it ended.
 */
const MB = 1024 * 1024;
const RHAI_PEAK_GROWTH_MB = 256;
const JS_PEAK_GROWTH_MB = 384;
const SETTLED_RATIO = 1.2;
const SETTLE_MS = 5_000;

export interface BombProbe {
  /** An HTTP call: status and body. */
  call(method: string, port: number, path: string, body?: string): Promise<{ status: number; body: string }>;
  rssMb(): number;
  fds(): number;
}

const rhai = (code: string) => ({ _svc: { script: { engine: 'rhai', code } } });

const BOMBS: Array<{ path: string; what: string; response: unknown; type: string; peakMb?: number }> = [
  { path: '/rhai-string', what: 'Rhai string doubling', response: rhai('let s = "0123456789"; loop { s += s; s.len(); }'), type: 'script_error' },
  {
    path: '/rhai-strings',
    what: 'Rhai 1 MB string copies',
    response: rhai('let s = ""; s.pad(1000000, "x"); let keep = []; loop { keep.push(s.to_upper()); }'),
    type: 'script_error',
  },
  { path: '/rhai-array', what: 'Rhai array push', response: rhai('let a = []; loop { a.push(a.len()); }'), type: 'script_error' },
  { path: '/rhai-map', what: 'Rhai map insert', response: rhai('let m = #{}; let i = 0; loop { m[`key${i}`] = i; i += 1; }'), type: 'script_error' },
  {
    path: '/inject',
    what: 'inject of 70 MiB',
    response: { inject: `function () { return { body: 'x'.repeat(${70 * MB}) }; }` },
    type: 'response_too_large',
    peakMb: JS_PEAK_GROWTH_MB,
  },
  {
    path: '/decorate',
    what: 'decorate to 70 MiB',
    response: { is: { body: 'small' }, _behaviors: { decorate: `function (request, response) { response.body = 'y'.repeat(${70 * MB}); }` } },
    type: 'response_too_large',
    peakMb: JS_PEAK_GROWTH_MB,
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the phase on `port` (free); prints one line per bomb; resolves whether every bomb held. */
export async function soakScriptBombs(probe: BombProbe, adminPort: number, port: number): Promise<boolean> {
  const stubs = BOMBS.map(({ path, response }) => ({ predicates: [{ equals: { path } }], responses: [response] }));
  const created = await probe.call(
    'POST',
    adminPort,
    '/imposters',
    JSON.stringify({ protocol: 'http', port, stubs, _svc: { scriptEngine: { timeoutMs: 60_000 } } }),
  );
  if (created.status !== 201) throw new Error(`creating the script-bomb imposter: ${created.status} ${created.body}`);
  let held = true;
  const baseline = probe.rssMb();
  console.log(`\nscript bombs (RSS MB / fds: before, peak, 5 s after; phase baseline ${baseline.toFixed(1)} MB):`);
  for (const bomb of BOMBS) {
    const before = probe.rssMb();
    const fdsBefore = probe.fds();
    let peak = before;
    let peakFds = fdsBefore;
    let running = true;
    const sampler = (async () => {
      while (running) {
        peak = Math.max(peak, probe.rssMb());
        peakFds = Math.max(peakFds, probe.fds());
        await sleep(20);
      }
    })();
    const answer = await probe.call('GET', port, bomb.path);
    running = false;
    await sampler;
    await sleep(SETTLE_MS);
    const after = probe.rssMb();
    const type = answer.status === 500 ? (JSON.parse(answer.body) as { errors: Array<{ type: string }> }).errors[0]?.type : `status ${answer.status}`;
    const ok = type === bomb.type && peak - before < (bomb.peakMb ?? RHAI_PEAK_GROWTH_MB) && after <= baseline * SETTLED_RATIO;
    held &&= ok;
    console.log(
      `  ${bomb.what.padEnd(24)} ${type}: rss ${before.toFixed(1)} / ${peak.toFixed(1)} / ${after.toFixed(1)}, fds ${fdsBefore} / ${peakFds} / ${probe.fds()} -> ${ok ? 'held' : 'FAILED'}`,
    );
  }
  await probe.call('DELETE', adminPort, `/imposters/${port}`);
  return held;
}

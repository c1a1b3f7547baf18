/**
 * The long robustness run: `node --import tsx test/fuzz/run.ts [--cases N] [--seed S] [--raw-share F]`
 * (`npm run fuzz`). Runs N generated cases (default 100,000) against a fresh `svc`, keeps going past
 * findings, and prints the figures: cases per second, answers by status, findings by kind with one
 * example each. Exit status 1 when anything was found.
 */
import fc from 'fast-check';
import { parseArgs } from 'node:util';
import { adminCase, rawCase, type AdminCase, type RawCase } from '../support/fuzz/arbitraries.js';
import { startFuzzTarget, type Finding } from '../support/fuzz/harness.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '100000' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    'raw-share': { type: 'string', default: '0.3' },
  },
});
const total = Number(values.cases);
const seed = Number(values.seed);
const rawShare = Number(values['raw-share']);
const BATCH = 500;
/** Cases between two liveness probes of the admin port and the imposter. */
const PROBE_EVERY = 100;
/** Raw imposter exchanges in flight at once. */
const RAW_LANES = 128;

const target = await startFuzzTarget();
const findings = new Map<string, { count: number; example: string }>();
const record = (where: string, finding: Finding | undefined, input: unknown): void => {
  if (!finding) return;
  const key = `${where}:${finding.kind}`;
  const seen = findings.get(key);
  if (seen) seen.count += 1;
  else
    findings.set(key, {
      count: 1,
      example: `${finding.detail}\n    input: ${JSON.stringify(input, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('latin1') : v)).slice(0, 600)}`,
    });
};

const started = process.hrtime.bigint();
let adminRun = 0;
let rawRun = 0;
let crashed = false;
try {
  for (let batch = 0; adminRun + rawRun < total && !crashed; batch += 1) {
    const size = Math.min(BATCH, total - adminRun - rawRun);
    const rawCount = Math.round(size * rawShare);
    const admins: AdminCase[] = fc.sample(adminCase(target.ports), { seed: seed + batch, numRuns: size - rawCount });
    const raws: RawCase[] = fc.sample(rawCase(), { seed: seed + batch, numRuns: rawCount });
    for (const c of admins) {
      const finding = await target.checkAdmin(c);
      record('admin', finding, c);
      adminRun += 1;
      if (finding?.kind === 'crash') {
        crashed = true;
        break;
      }
    }
    // Raw exchanges touch no admin state, so they run side by side; a socket left open after the
    // client's FIN then costs its wait once per lane, not once per case.
    for (let from = 0; from < raws.length && !crashed; from += RAW_LANES) {
      const lane = raws.slice(from, from + RAW_LANES);
      const outcomes = await Promise.all(lane.map((c) => target.checkRaw(c)));
      lane.forEach((c, i) => {
        record('imposter', outcomes[i], { wellFormed: c.wellFormed, bytes: c.bytes.toString('latin1') });
      });
      rawRun += lane.length;
      if (Math.floor(rawRun / PROBE_EVERY) !== Math.floor((rawRun - lane.length) / PROBE_EVERY)) {
        const down = await target.alive();
        record('imposter', down, { after: lane.map((c) => c.bytes.toString('latin1')) });
        if (down?.kind === 'crash') crashed = true;
      }
    }
    const done = adminRun + rawRun;
    if (done % 5000 < BATCH || process.env.FUZZ_VERBOSE) {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      console.log(
        `${done} cases (${adminRun} admin, ${rawRun} raw) in ${seconds.toFixed(0)} s, ${[...findings.values()].reduce((n, f) => n + f.count, 0)} findings`,
      );
    }
  }
  record('end', await target.alive(), 'final liveness probe');
} finally {
  await target.stop();
}

const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(
  `\nseed ${seed}: ${adminRun + rawRun} cases (${adminRun} admin requests, ${rawRun} raw imposter exchanges) in ${seconds.toFixed(1)} s (${((adminRun + rawRun) / seconds).toFixed(0)} cases/s)`,
);
const histogram = (counts: Map<string, number>) =>
  [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
console.log(`admin answers: ${histogram(target.stats.admin)}; accepted changes undone: ${target.stats.resets}`);
console.log(`imposter answers: ${histogram(target.stats.imposter)}`);
if (findings.size === 0) console.log('no findings');
for (const [key, { count, example }] of findings) console.log(`\n${key}: ${count}\n  e.g. ${example}`);
process.exit(findings.size === 0 ? 0 : 1);

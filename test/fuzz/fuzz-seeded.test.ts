/**
 * The robustness suite's seeded run (issue 10, must-show 2): a fixed-seed sample of the generators
 * `npm run fuzz` draws 100,000 cases from, against a real `svc` process. Every admin answer is a 2xx or
 * a docs/errors.md envelope (5xx only where documented), nothing hangs or crashes, and a rejected request
 * leaves the imposters as they were.
 */
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminCase, rawCase } from '../support/fuzz/arbitraries.js';
import { startFuzzTarget, type Finding, type FuzzTarget } from '../support/fuzz/harness.js';

const SEED = 20_261_124;
const ADMIN_CASES = 150;
const RAW_CASES = 64;
const RAW_LANES = 32;

const test = suite('fuzz: seeded robustness run');
let target: FuzzTarget;

test.before(async () => {
  target = await startFuzzTarget();
});
test.after(async () => {
  await target.stop();
});

function describe(finding: Finding): string {
  return `${finding.kind}: ${finding.detail}`;
}

test(`${ADMIN_CASES} admin requests (methods, paths, queries, bodies): envelopes, no hang, state unchanged when rejected`, async () => {
  await fc.assert(
    fc.asyncProperty(adminCase(target.ports), async (c) => {
      const finding = await target.checkAdmin(c);
      if (finding) throw new Error(describe(finding));
    }),
    { seed: SEED, numRuns: ADMIN_CASES, endOnFailure: false },
  );
  const answered = [...target.stats.admin.keys()];
  assert.ok(
    answered.some((status) => status.startsWith('4')),
    `the sample reaches rejections: ${answered}`,
  );
  assert.ok(
    answered.some((status) => status.startsWith('2')),
    `the sample reaches accepted requests: ${answered}`,
  );
});

test(`${RAW_CASES} raw byte sequences on an imposter port: well-formed answers, envelopes, the server alive`, async () => {
  const cases = fc.sample(rawCase(), { seed: SEED, numRuns: RAW_CASES });
  const found: string[] = [];
  for (let from = 0; from < cases.length; from += RAW_LANES) {
    const lane = cases.slice(from, from + RAW_LANES);
    const outcomes = await Promise.all(lane.map((c) => target.checkRaw(c)));
    outcomes.forEach((finding, i) => {
      if (finding) found.push(`${describe(finding)} for ${JSON.stringify(lane[i].bytes.toString('latin1')).slice(0, 300)}`);
    });
  }
  const down = await target.alive();
  assert.is(down, undefined, down && describe(down));
  assert.equal(found, []);
  assert.ok(target.stats.imposter.has('200') && target.stats.imposter.has('400'), `answers seen: ${[...target.stats.imposter.keys()]}`);
});

test.run();

/**
 * What user patterns cost on each engine (engine/model/user-pattern.ts): µs per match of typical
 * path patterns, linear-capable or bounded, beside a plain RegExp, and the catastrophic case.
 * Run: node --import tsx bench/regex-patterns.ts (wall time on a shared box: noisy, compare within a run).
 */
import { compileUserPattern } from '../engine/model/index.js';

function microsPerCall(work: () => unknown, calls: number): number {
  for (let i = 0; i < Math.min(calls, 1000); i++) work();
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) work();
  return Number(process.hrtime.bigint() - started) / 1e3 / calls;
}

const path = '/api/v2/users/12345';
const cases: Array<[string, string]> = [
  ['^/api/v\\d+/users/\\d+$', ''],
  ['^/api/v\\d+/users/\\d+$', 'i'],
  ['^/(?!admin)api/.*$', 'i'],
  ['^/api/(\\w+)/\\1$', ''],
  ['^/\\d{1,40}$', 'i'],
];
for (const [source, flags] of cases) {
  const pattern = compileUserPattern(source, flags);
  const plain = new RegExp(source, flags);
  const calls = pattern.engine === 'bounded' ? 2_000 : 500_000;
  let serial = 0;
  // A new input each time (a bounded pattern remembers the answers for inputs it has seen).
  const fresh = microsPerCall(() => pattern.test(`${path}${serial++}`), calls);
  const repeated = microsPerCall(() => pattern.test(path), 500_000);
  const theirs = microsPerCall(() => plain.test(`${path}${serial++}`), 500_000);
  console.log(
    `/${source}/${flags}  engine=${pattern.engine}  new input ${fresh.toFixed(3)} µs/match, repeated input ${repeated.toFixed(3)} µs  (plain RegExp ${theirs.toFixed(3)} µs)`,
  );
}

const evil = `/${'a'.repeat(26)}!`;
for (const flags of ['', 'i']) {
  const pattern = compileUserPattern('^/(a+)+$', flags);
  const started = process.hrtime.bigint();
  pattern.test(evil);
  console.log(`/^\\/(a+)+$/${flags} on a 28-character path: ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(2)} ms (engine=${pattern.engine})`);
}
let serial = 0;
// Distinct sources, as a stub set has: nothing is cached per source.
const compiles = microsPerCall(() => compileUserPattern(`^/API/V\\d+/[a-z]+${serial++}$`, 'i'), 3_000);
console.log(`compiling a case-insensitive pattern (rewrite + check): ${compiles.toFixed(1)} µs`);

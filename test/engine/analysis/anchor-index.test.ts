/**
 * Issue 10 item 7 (warnings): the shadowing analysis looks candidates up through AnchorIndex instead of
 * scanning every earlier stub. Property: whatever the predicates, every earlier stub that covers a later
 * one is among its candidates (so no warning is lost), and large affix-only stub lists analyse fast.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { AnchorIndex } from '../../../engine/analysis/anchor-index.js';
import { covers, factsOf } from '../../../engine/analysis/predicate-facts.js';
import { analyzeStubs } from '../../../engine/analysis/index.js';

const test = suite('reliability: stub analysis anchor index');

const text = fc.stringMatching(/^[ab/]{0,4}$/);
const field = fc.constantFrom('path', 'method', 'body');
const simple = fc
  .record({
    op: fc.constantFrom('equals', 'startsWith', 'endsWith', 'contains'),
    field,
    value: text,
    caseSensitive: fc.boolean(),
  })
  .map(({ op, field: f, value, caseSensitive }) => (caseSensitive ? { [op]: { [f]: value }, caseSensitive } : { [op]: { [f]: value } }));
const opaque = fc.constantFrom({ matches: { path: '^/a' } }, { exists: { body: true } }, { not: { equals: { path: '/b' } } });
const predicates = fc.array(fc.oneof({ weight: 4, arbitrary: simple }, { weight: 1, arbitrary: opaque }), { minLength: 1, maxLength: 3 });

test('every covering earlier stub is a candidate (fast-check, seeded)', () => {
  fc.assert(
    fc.property(fc.array(predicates, { minLength: 2, maxLength: 25 }), (list) => {
      const facts = list.map(factsOf);
      const index = new AnchorIndex();
      let lost = 0;
      facts.forEach((later, i) => {
        const candidates = new Set(index.candidates(later));
        for (let at = 0; at < i; at += 1) if (covers(facts[at], later) && !candidates.has(at)) lost += 1;
        index.add(i, later);
      });
      return lost === 0;
    }),
    { seed: 10_007, numRuns: 300 },
  );
});

test('20k startsWith-, endsWith- and contains-only stubs cost well under 5 s of CPU each, shadows still found', () => {
  for (const op of ['startsWith', 'contains', 'endsWith']) {
    const configs = Array.from({ length: 20_000 }, (_, i) => ({ predicates: [{ [op]: { path: `/p${i}/` } }], responses: [{ is: {} }] }));
    configs.push({ predicates: [{ equals: { path: '/p7/' } }], responses: [{ is: {} }] });
    const before = process.cpuUsage();
    const warnings = analyzeStubs(configs);
    const used = process.cpuUsage(before);
    const ms = (used.user + used.system) / 1000;
    assert.ok(ms < 5000, `${op}: ${ms.toFixed(0)} ms of CPU`);
    const shadow = warnings.find((w) => w.warningType === 'potentially_shadowed' && w.stubIndex === 20_000);
    assert.is(shadow?.shadowedByIndex, 7, `${op}: ${JSON.stringify(warnings.slice(0, 3))}`);
  }
});

test.run();

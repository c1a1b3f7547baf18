/** The page's pure helpers (admin/dashboard/static/outcome.js): match outcomes as sentences, error paths. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error: a plain browser ES module, no type declarations
import { describePredicate, outcomeSentences, pathOf, summarisePredicate } from '../../../admin/dashboard/static/outcome.js';

const test = suite('dashboard: outcome sentences');

const stubs = [
  { id: 'a', predicates: [{ equals: { path: '/a' } }] },
  { id: 'b', predicates: [{ equals: { method: 'POST' } }, { contains: { body: 'x' } }] },
  { id: 'c', space: 'tenant-a', predicates: [] },
  { id: 'd', scenarioName: 'checkout', requiredScenarioState: 'paid', predicates: [{ equals: { query: { q: '1' } } }] },
];

test('a predicate is named by its operator and fields', () => {
  assert.is(describePredicate({ equals: { path: '/a' } }), 'equals path');
  assert.is(describePredicate({ equals: { query: { q: '1', r: '2' } } }), 'equals query.q, query.r');
  assert.is(describePredicate({ matches: { body: 'x' }, jsonpath: { selector: '$.id' } }), 'matches body (jsonpath $.id)');
  assert.is(describePredicate({ and: [{ equals: { path: '/' } }, { exists: { body: true } }] }), 'and of 2 predicates');
  assert.is(describePredicate({ not: { equals: { method: 'GET' } } }), 'not (equals method)');
  assert.is(describePredicate({ inject: 'function () { return true; }' }), 'inject');
});

test('a stub summary shows the values its predicates expect', () => {
  assert.is(summarisePredicate({ equals: { path: '/a', method: 'GET' } }), 'equals path "/a", method "GET"');
  assert.is(summarisePredicate({ exists: { query: { q: true } } }), 'exists query.q true');
  assert.is(summarisePredicate({ matches: { body: 'x' }, jsonpath: { selector: '$.id' } }), 'matches body "x" (jsonpath $.id)');
  assert.is(summarisePredicate({ not: { contains: { body: 'y' } } }), 'not (contains body "y")');
  assert.is(summarisePredicate({ equals: { body: 'z'.repeat(60) } }), `equals body "${'z'.repeat(38)}…`);
});

test('a miss names the failing predicate of each visited stub and the stubs the index ruled out', () => {
  const lines = outcomeSentences(
    {
      matched: false,
      tried: [
        { stubIndex: 1, stubId: 'b', why: { reason: 'failedPredicate', predicateIndex: 1 } },
        { stubIndex: 2, stubId: 'c', why: { reason: 'skippedSpace' } },
        { stubIndex: 3, stubId: 'd', why: { reason: 'skippedScenarioState' } },
      ],
    },
    stubs,
  );
  assert.equal(
    lines.map((l: { text: string }) => l.text),
    [
      'matched no stub',
      'stub 1: predicate 1 failed: contains body',
      'stub 2: skipped: it belongs to space "tenant-a"',
      'stub 3: skipped: scenario "checkout" is not in state "paid"',
      'stub 0: ruled out by the request index before its predicates ran',
    ],
  );
});

test('a hit, a capped list and a missing outcome', () => {
  assert.equal(outcomeSentences({ matched: true, stubIndex: 1, stubId: 'b' }, stubs), [{ kind: 'match', text: 'matched stub 1' }]);
  const capped = outcomeSentences(
    { matched: false, tried: [{ stubIndex: 0, why: { reason: 'failedPredicate', predicateIndex: 0 } }], triedOmitted: 30 },
    stubs,
  );
  assert.equal(
    capped.map((l: { text: string }) => l.text),
    ['matched no stub', 'stub 0: predicate 0 failed: equals path', '… and 30 more candidates'],
  );
  assert.equal(outcomeSentences(undefined, stubs), [{ kind: 'none', text: 'no match outcome recorded' }]);
  const none = outcomeSentences({ matched: false }, stubs);
  assert.is(none[1].text, 'stubs 0, 1, 2, 3: ruled out by the request index before their predicates ran');
});

test('an error source is found at its JSON path in the submitted config', () => {
  const config = { protocol: 'http', stubs: [{ responses: [{ is: { body: 'ok' } }, { is: { statusCode: 'abc' } }] }] };
  assert.is(pathOf(config, { is: { statusCode: 'abc' } }), '$.stubs[0].responses[1]');
  assert.is(pathOf(config, { nowhere: true }), undefined);
  assert.is(pathOf(config, undefined), undefined);
});

test.run();

/**
 * Issue 19 item 2: a request body is parsed once for all its jsonpath predicates and once for all its
 * xpath predicates, however many stubs carry them; an anchored `matches` pattern's literal prefix
 * narrows the stub index (only the stubs whose prefix fits run their regex), and the indexed scan
 * still agrees with the linear one.
 */
import { createRequire } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { compileStubSet } from '../../../engine/match/index.js';
import { mockRequest } from '../../support/match-request.js';

const test = suite('match: selectors parse once, regex prefixes index');

/** Calls of `object[name]` while `run` runs (synchronously). */
function counting<T extends object>(object: T, name: keyof T, run: () => void): number {
  const original = object[name] as (...args: unknown[]) => unknown;
  let calls = 0;
  object[name] = function (this: unknown, ...args: unknown[]) {
    calls += 1;
    return original.apply(this, args);
  } as T[keyof T];
  try {
    run();
  } finally {
    object[name] = original as T[keyof T];
  }
  return calls;
}

test('jsonpath: one JSON.parse of the body for 30 stubs of the same normalisation', () => {
  const set = Array.from({ length: 30 }, (_, i) => ({ predicates: [{ equals: { body: `c${i}` }, jsonpath: { selector: '$.order.customer' } }] }));
  const matcher = compileStubSet(set);
  const request = mockRequest({ method: 'POST', body: JSON.stringify({ order: { customer: 'c29' } }) });
  let found = -2;
  const parses = counting(JSON, 'parse', () => {
    found = matcher.firstMatch(request, {}) as number;
  });
  assert.is(found, 29);
  assert.is(parses, 1);
});

test('xpath: one xmldom parse of the body for 30 stubs, each answering as before', () => {
  const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as { DOMParser: { prototype: { parseFromString: () => unknown } } };
  const set = Array.from({ length: 30 }, (_, i) => ({
    predicates: [{ equals: { body: `c${i}` }, xpath: { selector: '//b:customer', ns: { b: 'urn:b' } } }],
  }));
  const matcher = compileStubSet(set);
  // A comment keeps the body off the light tree: xmldom parses it.
  const body = '<order xmlns:b="urn:b"><!-- note --><b:customer>C29</b:customer></order>';
  let found = -2;
  const parses = counting(DOMParser.prototype, 'parseFromString', () => {
    found = matcher.firstMatch(mockRequest({ method: 'POST', body }), {}) as number;
  });
  assert.is(found, 29);
  assert.is(parses, 1);
  // A fresh request is parsed again (the memo is the request's own).
  assert.is(compileStubSet(set).firstMatch(mockRequest({ method: 'POST', body: body.replace('C29', 'C3') }), {}), 3);
});

test('xpath: a plain document is read once into the light tree for 30 stubs, xmldom not at all', () => {
  const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as { DOMParser: { prototype: { parseFromString: () => unknown } } };
  const set = Array.from({ length: 30 }, (_, i) => ({
    predicates: [{ equals: { body: `c${i}` }, xpath: { selector: i % 2 ? '//b:customer' : '/order/b:customer/text()', ns: { b: 'urn:b' } } }],
  }));
  const matcher = compileStubSet(set);
  const body = '<?xml version="1.0"?>\n<order xmlns:b="urn:b"><b:customer>C29</b:customer></order>';
  let found = -2;
  let lightParses = 0;
  let xmldomParses = -1;
  // The light parser's first step is its line-ending check: once per text it reads.
  const test = RegExp.prototype.test;
  RegExp.prototype.test = function (this: RegExp, text: string) {
    if (this.source.includes('u2028')) lightParses += 1;
    return test.call(this, text);
  };
  try {
    xmldomParses = counting(DOMParser.prototype, 'parseFromString', () => {
      found = matcher.firstMatch(mockRequest({ method: 'POST', body }), {}) as number;
    });
  } finally {
    RegExp.prototype.test = test;
  }
  assert.is(found, 29);
  assert.is(xmldomParses, 0);
  assert.is(lightParses, 1);
});

test('anchored matches: only the stub whose literal prefix fits runs its regex', () => {
  const set = Array.from({ length: 100 }, (_, n) => ({ predicates: [{ matches: { path: `^/re/${n}/[a-z]+/\\d+$` } }] }));
  const matcher = compileStubSet(set);
  let found = -2;
  const tests = counting(RegExp.prototype, 'test', () => {
    found = matcher.firstMatch(mockRequest({ path: '/re/99/abc/123' }), {}) as number;
  });
  assert.is(found, 99);
  assert.ok(tests <= 2, `${tests} regexes ran`);
});

const pattern = fc.oneof(
  fc.constantFrom('^/a', '^/a/', '^/ab?', '^/A', '^/a+b', '^\\/a\\.b', '^/s', '^/k', '^/a|^/b', '/a', '^/(a)', '^/a[b]', '^/a\\d', '^/a{2}', '^/ſ'),
  fc.stringMatching(/^\^\/[abAB.\\/?*+]{0,4}$/),
);
const stub = fc.record({ pattern, caseSensitive: fc.boolean(), other: fc.boolean() }).map(({ pattern: p, caseSensitive, other }) => ({
  predicates: [caseSensitive ? { matches: { path: p }, caseSensitive: true } : { matches: { path: p } }, ...(other ? [{ equals: { method: 'GET' } }] : [])],
}));
const path = fc.stringMatching(/^\/[abABsSkKſK./]{0,5}$/);

test('indexed and linear scans agree with regex prefixes in the index (fast-check, seeded)', () => {
  fc.assert(
    fc.property(fc.array(stub, { minLength: 1, maxLength: 20 }), fc.array(path, { minLength: 1, maxLength: 8 }), (set, paths) => {
      const indexed = compileStubSet(set);
      const linear = compileStubSet(set, { index: false });
      for (const p of paths) {
        const request = mockRequest({ path: p });
        const outcome = (run: () => unknown) => {
          try {
            return run();
          } catch (error) {
            return (error as Error).message;
          }
        };
        assert.is(
          outcome(() => indexed.firstMatch(request, {})),
          outcome(() => linear.firstMatch(request, {})),
          `${p} ${JSON.stringify(set)}`,
        );
      }
      return true;
    }),
    { seed: 192, numRuns: 300 },
  );
});

test('a plain jsonpath ($.a.b[0]) selects what jsonpath-plus selects (fast-check, seeded)', () => {
  // `$['a']` is not a plain path, so it is still evaluated by jsonpath-plus: both spellings must agree.
  const key = fc.constantFrom('a', 'B', 'b', 'length', '0');
  const doc = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, 0, 1, true, false, '', 'Ab', 'xyz'),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  const step = fc.oneof(
    key.filter((k) => /^[A-Za-z_]/.test(k)).map((k) => ({ plain: `.${k}`, bracketed: `['${k}']` })),
    fc.nat(2).map((i) => ({ plain: `[${i}]`, bracketed: `[${i}]` })),
  );
  const scalars = fc.constantFrom('0', '1', 'true', 'null', 'ab', 'xyz', 'x', '3', '');
  fc.assert(
    fc.property(doc, fc.array(step, { maxLength: 3 }), scalars, fc.boolean(), (body, steps, expected, caseSensitive) => {
      const stubs = (selector: string) => [
        { predicates: [{ exists: { body: true }, jsonpath: { selector } }] },
        { predicates: [{ equals: { body: expected }, caseSensitive, jsonpath: { selector } }] },
        { predicates: [{ deepEquals: { body: expected }, jsonpath: { selector } }] },
        { predicates: [{ exists: { body: false }, jsonpath: { selector } }] },
      ];
      const plain = `$${steps.map((s) => s.plain).join('')}`;
      const bracketed = `$${steps.map((s) => s.bracketed).join('')}`;
      const request = mockRequest({ method: 'POST', body: JSON.stringify(body) });
      for (let from = 0; from < 4; from++) {
        assert.is(
          compileStubSet(stubs(plain)).firstMatch(request, {}, from),
          compileStubSet(stubs(bracketed)).firstMatch(request, {}, from),
          `${plain} from ${from}`,
        );
      }
    }),
    {
      seed: 1919,
      numRuns: 600,
      // A falsy value is never stepped into, though '' has an own `length`.
      examples: [
        [
          { a: '' },
          [
            { plain: '.a', bracketed: "['a']" },
            { plain: '.length', bracketed: "['length']" },
          ],
          '0',
          true,
        ],
      ],
    },
  );
});

test.run();

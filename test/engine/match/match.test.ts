/**
 * Unit tests for predicate semantics (mountebank 2.9.1), validation messages and explain.
 * The differential test checks the same ground against a live mountebank; these pin the
 * behaviour without one and document the surprising parts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compilePredicate, explainPredicates, PredicateError, validatePredicates } from '../../../engine/match/index.js';
import type { MockRequest } from '../../../engine/model/request.js';
import { mockRequest } from '../../support/match-request.js';

function matches(predicate: unknown, request: Partial<MockRequest>): boolean {
  const result = compilePredicate(predicate)(mockRequest(request), {});
  assert.type(result, 'boolean');
  return result as boolean;
}

type Row = [name: string, predicate: unknown, request: Partial<MockRequest>, expected: boolean];

function table(title: string, rows: Row[]): void {
  test(title, () => {
    for (const [name, predicate, request, expected] of rows) {
      assert.is(matches(predicate, request), expected, `${name}: ${JSON.stringify(predicate)} on ${JSON.stringify(request)}`);
    }
  });
}

const json = (value: unknown): Partial<MockRequest> => ({ method: 'POST', body: JSON.stringify(value) });
const xml = (text: string): Partial<MockRequest> => ({ method: 'POST', body: text });

table('equals', [
  ['method folded', { equals: { method: 'get' } }, {}, true],
  ['method differs', { equals: { method: 'POST' } }, {}, false],
  ['path folded', { equals: { path: '/Test' } }, { path: '/TEST' }, true],
  ['path caseSensitive', { equals: { path: '/Test' }, caseSensitive: true }, { path: '/test' }, false],
  ['path caseSensitive exact', { equals: { path: '/Test' }, caseSensitive: true }, { path: '/Test' }, true],
  ['field names folded', { equals: { PATH: '/a' } }, { path: '/a' }, true],
  ['field names exact when caseSensitive', { equals: { PATH: '/a' }, caseSensitive: true }, { path: '/a' }, false],
  ['several fields all needed', { equals: { method: 'GET', path: '/a' } }, { path: '/b' }, false],
  ['query subset', { equals: { query: { q: 'A' } } }, { query: { q: 'a', other: '1' } }, true],
  ['query key folded', { equals: { query: { q: 'a' } } }, { query: { Q: 'a' } }, true],
  [
    'query key exact with keyCaseSensitive false + caseSensitive',
    { equals: { query: { Q: 'a' } }, caseSensitive: true, keyCaseSensitive: false },
    { query: { q: 'a' } },
    true,
  ],
  ['keyCaseSensitive true does not stop key folding', { equals: { query: { q: 'a' } }, keyCaseSensitive: true }, { query: { Q: 'a' } }, true],
  ['repeated query any', { equals: { query: { q: 'b' } } }, { query: { q: ['a', 'b'] } }, true],
  ['expected array all present', { equals: { query: { q: ['b', 'a'] } } }, { query: { q: ['a', 'b', 'c'] } }, true],
  ['expected array missing one', { equals: { query: { q: ['a', 'd'] } } }, { query: { q: ['a', 'b'] } }, false],
  ['missing key equals empty', { equals: { query: { q: '' } } }, {}, true],
  ['numbers compare as strings', { equals: { query: { n: 12 } } }, { query: { n: '12' } }, true],
  ['header any value', { equals: { headers: { 'x-test': 'yes' } } }, { headers: { 'X-Test': ['no', 'YES'] } }, true],
  ['header missing', { equals: { headers: { 'x-test': 'yes' } } }, {}, false],
  ['body text', { equals: { body: 'Hello' } }, { body: 'hello' }, true],
  ['body text is not a substring match', { equals: { body: 'Hello' } }, { body: 'hello!' }, false],
  ['JSON body subset', { equals: { body: { name: 'Bob' } } }, json({ name: 'bob', age: 3 }), true],
  ['JSON body keys folded', { equals: { body: { name: 'bob' } } }, json({ NAME: 'bob' }), true],
  ['JSON number vs string', { equals: { body: { age: 3 } } }, json({ age: '3' }), true],
  ['JSON null', { equals: { body: { a: null } } }, json({ a: null }), true],
  ['JSON null vs missing', { equals: { body: { a: null } } }, json({}), false],
  ['JSON array subset any order', { equals: { body: { tags: ['a', 'b'] } } }, json({ tags: ['c', 'b', 'a'] }), true],
  ['JSON nested', { equals: { body: { n: { x: 'y' } } } }, json({ n: { x: 'Y', z: 1 } }), true],
  ['legacy array of objects', { equals: { body: { name: 'bob' } } }, json([{ name: 'alice' }, { name: 'bob' }]), true],
  ['non-JSON body with object expectation', { equals: { body: { a: 'x' } } }, { body: 'plain' }, false],
  ['form', { equals: { form: { a: '1' } } }, { form: { a: '1', b: '2' } }, true],
  ['form absent', { equals: { form: { a: '1' } } }, {}, false],
  ['requestFrom', { equals: { requestFrom: '127.0.0.1:50000' } }, {}, true],
  ['ip', { equals: { ip: '127.0.0.1' } }, {}, true],
  ['unknown field vs empty', { equals: { nope: '' } }, {}, true],
  ['a number as the whole expectation matches anything', { equals: 5 }, {}, true],
  ['a string as the whole expectation compares its characters', { equals: 'x' }, {}, false],
  ['two operators: the first key wins', { startsWith: { path: '/a' }, equals: { path: '/zzz' } }, { path: '/ab' }, true],
]);

table('deepEquals', [
  ['exact query', { deepEquals: { query: { q: 'a' } } }, { query: { q: 'A' } }, true],
  ['extra query key fails', { deepEquals: { query: { q: 'a' } } }, { query: { q: 'a', r: '1' } }, false],
  ['empty query', { deepEquals: { query: {} } }, {}, true],
  ['array any order', { deepEquals: { query: { q: ['b', 'a'] } } }, { query: { q: ['a', 'b'] } }, true],
  ['array must be complete', { deepEquals: { query: { q: ['a'] } } }, { query: { q: ['a', 'b'] } }, false],
  ['JSON exact', { deepEquals: { body: { a: 1, b: [1, 2] } } }, json({ b: [2, 1], a: '1' }), true],
  ['JSON extra key', { deepEquals: { body: { a: 1 } } }, json({ a: 1, c: 2 }), false],
  ['JSON caseSensitive', { deepEquals: { body: { a: 'X' } }, caseSensitive: true }, json({ a: 'x' }), false],
  ['body text', { deepEquals: { body: 'Hi' } }, { body: 'hi' }, true],
  ['string expectation is not lenient like equals', { deepEquals: 'x' }, {}, false],
]);

table('contains / startsWith / endsWith', [
  ['contains body', { contains: { body: 'World' } }, { body: 'hello world' }, true],
  ['contains body no', { contains: { body: 'World' } }, { body: 'hello' }, false],
  ['contains header', { contains: { headers: { 'content-type': 'JSON' } } }, { headers: { 'Content-Type': 'application/json' } }, true],
  ['contains JSON', { contains: { body: { name: 'O' } } }, json({ name: 'Bob' }), true],
  ['startsWith path', { startsWith: { path: '/API' } }, { path: '/api/x' }, true],
  ['startsWith path no', { startsWith: { path: '/api' } }, { path: '/v1/api' }, false],
  ['endsWith path', { endsWith: { path: '.JSON' } }, { path: '/a.json' }, true],
  ['endsWith path no', { endsWith: { path: '.json' } }, { path: '/a.jsonx' }, false],
  ['endsWith caseSensitive', { endsWith: { body: 'C' }, caseSensitive: true }, { body: 'abc' }, false],
  ['endsWith a number degrades to contains', { endsWith: { body: { n: 5 } } }, json({ n: '567' }), true],
]);

table('matches', [
  ['path regex folded', { matches: { path: '^/Item/\\d+$' } }, { path: '/item/12' }, true],
  ['path regex caseSensitive', { matches: { path: '^/Item/\\d+$' }, caseSensitive: true }, { path: '/item/12' }, false],
  ['upper-case metacharacters survive', { matches: { body: '\\W' } }, { body: 'a b' }, true],
  ['\\W on word text', { matches: { body: '\\W' } }, { body: 'abc' }, false],
  ['header values', { matches: { headers: { 'x-id': '^[A-F]+$' } } }, { headers: { 'X-Id': 'abc' } }, true],
  ['repeated query any', { matches: { query: { a: '^\\d$' } } }, { query: { a: ['x', '1'] } }, true],
  ['JSON field', { matches: { body: { name: '^b' } } }, json({ name: 'Bob' }), true],
  ['numeric pattern', { matches: { path: 5 } }, { path: '/5' }, true],
  ['except is case-sensitive for matches', { matches: { body: '^abc$' }, except: 'x' }, { body: 'aXbc' }, false],
  ['except strips before matching', { matches: { body: '^abc$' }, except: 'X' }, { body: 'aXbc' }, true],
]);

table('exists', [
  ['query present', { exists: { query: { q: true } } }, { query: { q: '1' } }, true],
  ['query empty value counts as absent', { exists: { query: { q: true } } }, { query: { q: '' } }, false],
  ['query absent', { exists: { query: { q: false } } }, {}, true],
  ['repeated query exists', { exists: { query: { q: true } } }, { query: { q: ['1', '2'] } }, true],
  ['header', { exists: { headers: { 'X-A': true } } }, { headers: { 'x-a': 'b' } }, true],
  ['body', { exists: { body: true } }, { body: 'x' }, true],
  ['empty body', { exists: { body: false } }, { body: '' }, true],
  ['JSON key', { exists: { body: { a: true } } }, json({ a: 1 }), true],
  ['JSON key missing', { exists: { body: { a: false } } }, json({ b: 1 }), true],
  ['form absent fails even for false', { exists: { form: { a: false } } }, {}, false],
]);

table('except', [
  ['stripped from actual', { equals: { body: 'ac' }, except: 'B' }, { body: 'abc' }, true],
  ['stripped from expected too', { equals: { body: 'hello world' }, except: 'world' }, { body: 'hello there' }, false],
  ['stripped from expected and actual', { equals: { body: 'hello world' }, except: 'world|there' }, { body: 'hello there' }, true],
  ['regex', { equals: { body: 'x' }, except: '\\d+' }, { body: 'x123' }, true],
  ['caseSensitive except', { equals: { body: 'aXbc' }, except: 'x', caseSensitive: true }, { body: 'aXbc' }, true],
  ['path prefix', { equals: { path: '/x' }, except: '^/api' }, { path: '/API/x' }, true],
]);

table('not / and / or', [
  ['not', { not: { equals: { method: 'GET' } } }, {}, false],
  ['not on repeated header fails when one value matches', { not: { equals: { headers: { 'X-A': 'b' } } } }, { headers: { 'X-A': ['b', 'c'] } }, false],
  ['not on repeated header passes when none match', { not: { equals: { headers: { 'X-A': 'b' } } } }, { headers: { 'X-A': ['c', 'd'] } }, true],
  ['not not', { not: { not: { equals: { path: '/a' } } } }, { path: '/a' }, true],
  ['and', { and: [{ equals: { method: 'POST' } }, { contains: { body: 'x' } }] }, { method: 'POST', body: 'x' }, true],
  ['and one false', { and: [{ equals: { method: 'POST' } }, { contains: { body: 'x' } }] }, { method: 'POST', body: 'y' }, false],
  ['or', { or: [{ equals: { path: '/a' } }, { equals: { path: '/b' } }] }, { path: '/b' }, true],
  ['empty and', { and: [] }, {}, true],
  ['empty or', { or: [] }, {}, false],
]);

table('jsonpath', [
  ['selects and folds', { equals: { body: 'Bob' }, jsonpath: { selector: '$.name' } }, json({ name: 'bob' }), true],
  ['selector folded with keys', { equals: { body: 'bob' }, jsonpath: { selector: '$.NAME' } }, json({ name: 'bob' }), true],
  [
    'keyCaseSensitive keeps selector case but keys are still folded',
    { equals: { body: 'bob' }, jsonpath: { selector: '$.NAME' }, keyCaseSensitive: true },
    json({ NAME: 'bob' }),
    false,
  ],
  ['caseSensitive', { equals: { body: 'Bob' }, jsonpath: { selector: '$.name' }, caseSensitive: true }, json({ name: 'bob' }), false],
  ['several results: any', { equals: { body: 'x' }, jsonpath: { selector: '$..tag' } }, json({ a: { tag: 'y' }, b: { tag: 'x' } }), true],
  [
    'several results: deepEquals all, any order',
    { deepEquals: { body: ['x', 'y'] }, jsonpath: { selector: '$..tag' } },
    json({ a: { tag: 'y' }, b: { tag: 'x' } }),
    true,
  ],
  ['deepEquals a number', { deepEquals: { body: 5 }, jsonpath: { selector: '$.n' } }, json({ n: 5 }), true],
  ['nothing selected', { exists: { body: true }, jsonpath: { selector: '$.a' } }, json({ b: 1 }), false],
  ['not JSON', { equals: { body: 'x' }, jsonpath: { selector: '$.a' } }, { body: 'x' }, false],
  ['indexed selector keeps order', { equals: { body: 2 }, jsonpath: { selector: '$.items[0]' } }, json({ items: [2, 1] }), true],
  ['applies to every field (method is not JSON)', { equals: { method: 'POST' }, jsonpath: { selector: '$.a' } }, json({ a: 1 }), false],
  ['matches on selection', { matches: { body: '^B' }, jsonpath: { selector: '$.name' } }, json({ name: 'Bob' }), true],
]);

table('xpath', [
  ['selects text', { equals: { body: 'Bob' }, xpath: { selector: '//name' } }, xml('<root><NAME>bob</NAME></root>'), true],
  ['caseSensitive', { equals: { body: 'Bob' }, xpath: { selector: '//Name' }, caseSensitive: true }, xml('<root><name>Bob</name></root>'), false],
  ['caseSensitive exact', { equals: { body: 'Bob' }, xpath: { selector: '//Name' }, caseSensitive: true }, xml('<root><Name>Bob</Name></root>'), true],
  [
    'namespaces',
    { equals: { body: 'x' }, xpath: { selector: '//a:name', ns: { a: 'http://example.com/NS' } } },
    xml('<r xmlns:b="http://example.com/ns"><b:name>x</b:name></r>'),
    true,
  ],
  [
    'namespace not matched',
    { equals: { body: 'x' }, xpath: { selector: '//a:name', ns: { a: 'http://example.com/ns' } } },
    xml('<r><name>x</name></r>'),
    false,
  ],
  ['attribute', { equals: { body: 'v' }, xpath: { selector: '//item/@id' } }, xml('<r><item id="V"/></r>'), true],
  ['count', { equals: { body: 2 }, xpath: { selector: 'count(//item)' } }, xml('<r><item/><item/></r>'), true],
  ['any of several nodes', { equals: { body: 'b' }, xpath: { selector: '//n' } }, xml('<r><n>a</n><n>b</n></r>'), true],
  ['empty element exists', { exists: { body: true }, xpath: { selector: '//empty' } }, xml('<r><empty/></r>'), true],
  ['missing element', { exists: { body: true }, xpath: { selector: '//empty' } }, xml('<r/>'), false],
  ['matches on selection', { matches: { body: '^\\d+$' }, xpath: { selector: '//n' } }, xml('<r><n>12</n></r>'), true],
]);

test('inject calls the hook, or throws when injection is unavailable', async () => {
  const predicate = compilePredicate({ inject: 'function (config) { return true; }' });
  const seen: string[] = [];
  const request = mockRequest({ path: '/x' });
  assert.is(
    predicate(request, {
      injectPredicate: (source, req) => {
        seen.push(source, req.path);
        return true;
      },
    }),
    true,
  );
  assert.equal(seen, ['function (config) { return true; }', '/x']);
  assert.is(await compilePredicate({ not: { inject: 'f' } })(request, { injectPredicate: async () => true }), false);
  assert.throws(() => predicate(request, {}), /injection not available/);
});

test('evaluation errors are PredicateErrors (mountebank answers them with 500)', () => {
  const run = (predicate: unknown, request: Partial<MockRequest>) => () => compilePredicate(predicate)(mockRequest(request), {});
  assert.throws(run({ contains: { body: { age: 3 } } }, json({ age: 3 })), (error: unknown) => error instanceof PredicateError);
  assert.throws(run({ matches: { body: { a: '(' } } }, json({ a: 'x' })), /Invalid regular expression/);
  assert.throws(run({ or: [{ equals: { path: '/' } }, {}] }, { path: '/x' }), /missing predicate/);
  assert.is(compilePredicate({ or: [{ equals: { path: '/' } }, {}] })(mockRequest(), {}), true);
});

test('validatePredicates mirrors mountebank dry-run validation', () => {
  const cases: Array<[unknown, RegExp | null]> = [
    [undefined, null],
    [[], null],
    [[{ equals: { path: '/' } }], null],
    [[{}], /^missing predicate$/],
    [[{ foo: { path: '/' } }], /^missing predicate$/],
    [[{ not: 5 }], /^missing predicate$/],
    [[{ not: [] }], /^missing predicate$/],
    [[{ and: [{ equals: { path: '/' } }, {}] }], /^missing predicate$/],
    [[{ equals: { body: 'x' }, xpath: { selector: '!!' } }], /^malformed xpath predicate selector$/],
    [[{ matches: { path: '(' } }], /Invalid regular expression/],
    [[{ equals: { body: 'x' }, except: '(' }], /Invalid regular expression/],
    [[{ and: { path: '/' } }], /and predicate must be an array/],
    [[{ or: 'x' }], /or predicate must be an array/],
    [[{ equals: { body: 'x' }, jsonpath: {} }], /jsonpath/],
    [[{ equals: { body: 'x' }, jsonpath: '$.a' }], /jsonpath/],
    [[{ equals: { body: 'x' }, xpath: {} }], /xpath/],
    [[{ equals: null }], /equals/],
    [{ equals: {} }, /predicates must be an array/],
    // mountebank accepts these: its dry run never reaches the problem.
    [[{ or: [{ equals: { path: '/' } }, {}] }], null],
    [[{ matches: { body: { a: '(' } } }], null],
    [[{ matches: { path: 5 } }], null],
    [[{ equals: 5 }], null],
    [[{ inject: 5 }], null],
    [[{ equals: { body: 'x' }, jsonpath: {}, keyCaseSensitive: true }], null],
  ];
  for (const [predicates, expected] of cases) {
    const message = validatePredicates(predicates);
    if (expected === null) assert.is(message, null, JSON.stringify(predicates));
    else assert.match(message ?? '', expected, JSON.stringify(predicates));
  }
});

test('explainPredicates reports each predicate and the fields it read', () => {
  const predicates = [{ equals: { method: 'GET' } }, { equals: { path: '/b', Body: 'x' } }, { not: { exists: { headers: { 'X-A': true } } } }, { inject: 'f' }];
  const request = mockRequest({ path: '/a', body: 'x', headers: { 'X-A': '1' } });
  const verdicts = explainPredicates(predicates, request, { injectPredicate: () => true });
  assert.ok(Array.isArray(verdicts));
  const list = verdicts as Exclude<typeof verdicts, Promise<unknown>>;
  assert.equal(
    list.map((v) => v.passed),
    [true, false, false, true],
  );
  assert.equal(list[0]!.actual, { method: 'GET' });
  assert.equal(list[1]!.actual, { path: '/a', body: 'x' });
  assert.equal(list[2]!.actual, { headers: { 'X-A': '1' } });
  assert.equal(Object.keys(list[3]!.actual), ['requestFrom', 'method', 'path', 'query', 'headers', 'body', 'ip']);
  assert.is(list[1]!.predicate, predicates[1]);
});

test('explainPredicates goes async only for async inject hooks', async () => {
  const result = explainPredicates([{ inject: 'f' }, { equals: { path: '/' } }], mockRequest(), { injectPredicate: async () => false });
  assert.instance(result, Promise);
  assert.equal(
    (await result).map((v) => v.passed),
    [false, true],
  );
});

test.run();

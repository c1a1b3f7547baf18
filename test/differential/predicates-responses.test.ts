/**
 * Imposter traffic, svc vs mountebank 2.9.1: every predicate operator and parameter, and the `is`
 * response features. Each case is one imposter plus a request sequence; both sides get the same
 * JSON and the same requests, and the observable responses must be identical (see
 * test/support/mountebank/pair.ts for what "observable" means).
 *
 * `expect` on a request pins mountebank's answer body, so each case is known to exercise what its
 * name says (a predicate case has requests that hit and requests that miss).
 */
import { suite } from 'uvu';
import { assertSameAnswers, pairForSuite } from '../support/mountebank/pair.js';

interface Req {
  method?: string;
  path?: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** mountebank's expected body. */
  expect?: string;
}

interface Case {
  name: string;
  imposter: object;
  requests: Req[];
}

const HIT = 'hit';

/** One stub answering `hit` for the predicate; hits must match, misses must fall to the empty default. */
function predicate(name: string, pred: object, hits: Req[], misses: Req[]): Case {
  return {
    name,
    imposter: { protocol: 'http', stubs: [{ predicates: [pred], responses: [{ is: { body: HIT } }] }] },
    requests: [...hits.map((r) => ({ ...r, expect: HIT })), ...misses.map((r) => ({ ...r, expect: '' }))],
  };
}

const post = (body: string, headers: Record<string, string> = {}): Req => ({ method: 'POST', path: '/', body, headers });
const json = (value: unknown): Req => post(JSON.stringify(value), { 'content-type': 'application/json' });
const xml = (body: string): Req => post(body, { 'content-type': 'application/xml' });
const get = (path: string, headers: Record<string, string | string[]> = {}): Req => ({ method: 'GET', path, headers });

const cases: Case[] = [
  // equals
  predicate('equals method', { equals: { method: 'POST' } }, [post('x')], [get('/')]),
  predicate('equals path is case-insensitive by default', { equals: { path: '/test' } }, [get('/test'), get('/TEST')], [get('/test/x'), get('/tes')]),
  predicate('equals query matches a subset of keys', { equals: { query: { q: '1' } } }, [get('/?q=1'), get('/?q=1&r=2')], [get('/?q=2'), get('/')]),
  predicate('equals query with repeated key', { equals: { query: { q: ['1', '2'] } } }, [get('/?q=1&q=2')], [get('/?q=1')]),
  predicate(
    'equals header name and value case-insensitive',
    { equals: { headers: { 'X-Key': 'abc' } } },
    [get('/', { 'x-key': 'ABC' }), get('/', { 'X-KEY': 'abc' })],
    [get('/'), get('/', { 'x-key': 'abcd' })],
  ),
  predicate(
    'equals header sent twice',
    { equals: { headers: { 'X-Multi': 'b' } } },
    [get('/', { 'x-multi': ['a', 'b'] })],
    [get('/', { 'x-multi': ['a', 'c'] })],
  ),
  predicate('equals body text', { equals: { body: 'hello' } }, [post('hello'), post('HELLO')], [post('hello!'), get('/')]),
  predicate(
    'equals body JSON subset',
    { equals: { body: { a: 1, nested: { b: 'x' } } } },
    [json({ a: 1, nested: { b: 'X', c: 2 }, z: 0 })],
    [json({ a: 2, nested: { b: 'x' } }), post('a=1')],
  ),
  predicate('equals body JSON array', { equals: { body: { list: [1, 2] } } }, [json({ list: [1, 2] })], [json({ list: [3] })]),
  predicate(
    'equals caseSensitive',
    { equals: { path: '/Test', body: 'Hi' }, caseSensitive: true },
    [{ method: 'POST', path: '/Test', body: 'Hi' }],
    [
      { method: 'POST', path: '/test', body: 'Hi' },
      { method: 'POST', path: '/Test', body: 'hi' },
    ],
  ),
  predicate(
    'equals except strips a regex before comparing',
    { equals: { body: 'hello' }, except: '\\d+' },
    [post('hel123lo'), post('hello')],
    [post('hel123lo!')],
  ),
  predicate('equals caseSensitive applies to query keys too', { equals: { query: { Key: 'V' } }, caseSensitive: true }, [get('/?Key=V')], [get('/?key=V')]),
  // mountebank only reads keyCaseSensitive:false (with caseSensitive on); `true` alone changes nothing.
  predicate(
    'equals keyCaseSensitive false',
    { equals: { query: { Key: 'V' } }, caseSensitive: true, keyCaseSensitive: false },
    [get('/?key=V'), get('/?KEY=V')],
    [get('/?key=v')],
  ),
  predicate(
    'equals keyCaseSensitive true alone',
    { equals: { query: { Key: 'v' } }, keyCaseSensitive: true },
    [get('/?Key=v'), get('/?key=V')],
    [get('/?key=x')],
  ),
  predicate(
    'equals form fields of a urlencoded body',
    { equals: { form: { a: '1' } } },
    [post('a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' })],
    [post('a=2', { 'content-type': 'application/x-www-form-urlencoded' })],
  ),
  predicate('equals several fields at once', { equals: { method: 'GET', path: '/x', query: { a: 'b' } } }, [get('/x?a=b')], [get('/x'), post('/x?a=b')]),

  // deepEquals
  predicate('deepEquals query needs every key', { deepEquals: { query: { q: '1' } } }, [get('/?q=1')], [get('/?q=1&r=2'), get('/')]),
  predicate('deepEquals empty query', { deepEquals: { query: {} } }, [get('/x')], [get('/x?a=1')]),
  predicate('deepEquals body JSON exact', { deepEquals: { body: { a: 1 } } }, [json({ a: 1 })], [json({ a: 1, b: 2 }), json({ a: 2 })]),
  predicate('deepEquals method', { deepEquals: { method: 'put' } }, [{ method: 'PUT', path: '/' }], [get('/')]),
  predicate('deepEquals path', { deepEquals: { path: '/exact' } }, [get('/exact'), get('/EXACT')], [get('/exact/')]),
  predicate('deepEquals body text caseSensitive', { deepEquals: { body: 'Body' }, caseSensitive: true }, [post('Body')], [post('body')]),

  // contains / startsWith / endsWith
  predicate(
    'contains path and body',
    { contains: { path: 'item', body: 'needle' } },
    [{ method: 'POST', path: '/items/1', body: 'hayNEEDLEhay' }],
    [
      { method: 'POST', path: '/items/1', body: 'hay' },
      { method: 'POST', path: '/x', body: 'needle' },
    ],
  ),
  predicate('contains header value', { contains: { headers: { 'X-Trace': 'abc' } } }, [get('/', { 'x-trace': 'xxabcxx' })], [get('/', { 'x-trace': 'ab' })]),
  predicate('contains query value', { contains: { query: { q: 'ell' } } }, [get('/?q=hello')], [get('/?q=help')]),
  predicate('contains JSON body field', { contains: { body: { name: 'li' } } }, [json({ name: 'alice' })], [json({ name: 'bob' })]),
  predicate('startsWith path', { startsWith: { path: '/api' } }, [get('/api/v1'), get('/API')], [get('/v1/api')]),
  predicate('startsWith body caseSensitive', { startsWith: { body: 'BEGIN' }, caseSensitive: true }, [post('BEGIN;x')], [post('begin;x')]),
  predicate('endsWith path', { endsWith: { path: '.json' } }, [get('/a/b.json')], [get('/a/b.jsonx')]),
  predicate(
    'endsWith header',
    { endsWith: { headers: { Accept: '/xml' } } },
    [get('/', { accept: 'application/xml' })],
    [get('/', { accept: 'application/json' })],
  ),

  // matches
  predicate('matches path', { matches: { path: '^/users/\\d+$' } }, [get('/users/42')], [get('/users/x'), get('/users/42/')]),
  predicate('matches is case-insensitive by default', { matches: { body: '^abc' } }, [post('ABCdef')], [post('xabc')]),
  predicate('matches caseSensitive', { matches: { path: '^/A' }, caseSensitive: true }, [get('/A')], [get('/a')]),
  predicate(
    'matches header and query',
    { matches: { headers: { 'X-Id': '^[0-9a-f]{4}$' }, query: { page: '\\d' } } },
    [get('/?page=3', { 'x-id': 'beef' })],
    [get('/?page=x', { 'x-id': 'beef' }), get('/?page=3', { 'x-id': 'bee' })],
  ),
  predicate('matches JSON body field', { matches: { body: { id: '^\\d+$' } } }, [json({ id: '123' })], [json({ id: 'a1' })]),

  // exists
  predicate('exists query key', { exists: { query: { q: true } } }, [get('/?q=1')], [get('/'), get('/?r=1')]),
  predicate('exists header false', { exists: { headers: { 'X-Block': false } } }, [get('/')], [get('/', { 'x-block': '1' })]),
  predicate('exists body', { exists: { body: true } }, [post('x')], [get('/')]),
  predicate('exists JSON body field', { exists: { body: { user: { id: true } } } }, [json({ user: { id: 1 } })], [json({ user: {} })]),

  // and / or / not
  predicate('and', { and: [{ equals: { method: 'GET' } }, { startsWith: { path: '/a' } }] }, [get('/abc')], [get('/b'), post('/abc')]),
  predicate('or', { or: [{ equals: { path: '/x' } }, { equals: { path: '/y' } }] }, [get('/x'), get('/y')], [get('/z')]),
  predicate('not', { not: { equals: { path: '/x' } } }, [get('/y')], [get('/x')]),
  predicate(
    'not over a header sent twice',
    { not: { equals: { headers: { 'X-Multi': 'a' } } } },
    [get('/', { 'x-multi': ['b', 'c'] })],
    [get('/', { 'x-multi': ['b', 'a'] })],
  ),
  predicate(
    'nested and/or/not',
    { and: [{ or: [{ equals: { method: 'GET' } }, { equals: { method: 'PUT' } }] }, { not: { contains: { path: 'admin' } } }] },
    [get('/home'), { method: 'PUT', path: '/home', body: '' }],
    [get('/admin'), post('/home')],
  ),

  // jsonpath / xpath
  predicate(
    'jsonpath equals',
    { equals: { body: 'Bob' }, jsonpath: { selector: '$.name' } },
    [json({ name: 'bob' })],
    [json({ name: 'al' }), post('not json')],
  ),
  predicate(
    'jsonpath array selector',
    { equals: { body: 'b' }, jsonpath: { selector: '$.items[*].id' } },
    [json({ items: [{ id: 'a' }, { id: 'b' }] })],
    [json({ items: [{ id: 'a' }] })],
  ),
  predicate('jsonpath exists', { exists: { body: true }, jsonpath: { selector: '$.token' } }, [json({ token: 'x' })], [json({ other: 1 })]),
  predicate('jsonpath number', { equals: { body: 42 }, jsonpath: { selector: '$.n' } }, [json({ n: 42 })], [json({ n: 43 })]),
  predicate(
    'xpath equals',
    { equals: { body: 'Bob' }, xpath: { selector: '//name' } },
    [xml('<user><name>bob</name></user>')],
    [xml('<user><name>al</name></user>')],
  ),
  predicate(
    'xpath with namespaces',
    { equals: { body: 'v' }, xpath: { selector: '//a:item', ns: { a: 'urn:a' } } },
    [xml('<r xmlns:x="urn:a"><x:item>v</x:item></r>')],
    [xml('<r xmlns:x="urn:b"><x:item>v</x:item></r>')],
  ),
  predicate(
    'xpath text() under a default namespace and a remapped prefix',
    { equals: { body: 'v' }, xpath: { selector: '/d:r/p:item/text()', ns: { d: 'urn:d', p: 'urn:p' } } },
    [xml('<?xml version="1.0"?>\r\n<r xmlns="urn:d" xmlns:q="urn:p"><q:item>V</q:item></r>')],
    [xml('<r xmlns="urn:d"><item>v</item></r>'), xml('<r xmlns:q="urn:p"><q:item>v</q:item></r>')],
  ),
  predicate(
    'xpath several matches of nested elements',
    { deepEquals: { body: ['1', '2'] }, xpath: { selector: '//a//b' } },
    [xml('<r><a><b>2</b><a><b>1</b></a></a></r>')],
    [xml('<r><a><b>1</b></a></r>'), xml('<r><a><b>1</b><b>2</b><b>3</b></a></r>')],
  ),
  predicate(
    'xpath on a document with a comment and CDATA (xmldom reads it)',
    { equals: { body: 'v' }, xpath: { selector: '//item' } },
    [xml('<r><!-- c --><item>v</item><![CDATA[x]]></r>')],
    [xml('<r><!-- c --><item>w</item></r>'), post('v')],
  ),
  predicate(
    'xpath attribute with matches',
    { matches: { body: '^\\d+$' }, xpath: { selector: '//order/@id' } },
    [xml('<order id="12"/>')],
    [xml('<order id="x"/>')],
  ),

  // stub order and catch-all
  {
    name: 'first matching stub wins; a stub without predicates catches all',
    imposter: {
      protocol: 'http',
      stubs: [
        { predicates: [{ startsWith: { path: '/a' } }], responses: [{ is: { body: 'first' } }] },
        { predicates: [{ equals: { path: '/ab' } }], responses: [{ is: { body: 'second' } }] },
        { responses: [{ is: { body: 'catch-all' } }] },
      ],
    },
    requests: [
      { path: '/ab', expect: 'first' },
      { path: '/b', expect: 'catch-all' },
    ],
  },

  // responses
  {
    name: 'responses cycle in order and wrap',
    imposter: { protocol: 'http', stubs: [{ responses: [{ is: { body: 'A' } }, { is: { body: 'B' } }, { is: { body: 'C' } }] }] },
    requests: ['A', 'B', 'C', 'A'].map((expect) => ({ path: '/', expect })),
  },
  {
    name: 'response-level repeat',
    imposter: { protocol: 'http', stubs: [{ responses: [{ is: { body: 'A' }, repeat: 2 }, { is: { body: 'B' } }] }] },
    requests: ['A', 'A', 'B', 'A'].map((expect) => ({ path: '/', expect })),
  },
  {
    name: 'repeat inside _behaviors',
    imposter: { protocol: 'http', stubs: [{ responses: [{ is: { body: 'A' }, _behaviors: { repeat: 2 } }, { is: { body: 'B' } }] }] },
    requests: ['A', 'A', 'B', 'A'].map((expect) => ({ path: '/', expect })),
  },
  {
    name: 'is: status, header arrays and a string body',
    imposter: {
      protocol: 'http',
      stubs: [
        { responses: [{ is: { statusCode: 201, headers: { 'X-Multi': ['one', 'two'], 'Content-Type': 'text/plain', Location: '/x/1' }, body: 'created' } }] },
      ],
    },
    requests: [{ method: 'POST', path: '/x', body: 'a', expect: 'created' }],
  },
  {
    name: 'is: JSON body object',
    imposter: {
      protocol: 'http',
      stubs: [{ responses: [{ is: { headers: { 'Content-Type': 'application/json' }, body: { id: 1, tags: ['a', 'b'], nested: { ok: true } } } }] }],
    },
    requests: [{ path: '/' }],
  },
  {
    name: 'is: JSON body without content-type',
    imposter: { protocol: 'http', stubs: [{ responses: [{ is: { body: { id: 1 } } }] }] },
    requests: [{ path: '/' }],
  },
  {
    name: 'is: binary body',
    imposter: { protocol: 'http', stubs: [{ responses: [{ is: { _mode: 'binary', body: Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]).toString('base64') } }] }] },
    requests: [{ path: '/' }],
  },
  {
    name: 'is: keep-alive connection header kept',
    imposter: { protocol: 'http', stubs: [{ responses: [{ is: { headers: { Connection: 'keep-alive' }, body: 'ka' } }] }] },
    requests: [{ path: '/', headers: { connection: 'keep-alive' }, expect: 'ka' }],
  },
  {
    name: 'is: empty is and status only',
    imposter: {
      protocol: 'http',
      stubs: [{ predicates: [{ equals: { path: '/empty' } }], responses: [{ is: {} }] }, { responses: [{ is: { statusCode: 404 } }] }],
    },
    requests: [
      { path: '/empty', expect: '' },
      { path: '/other', expect: '' },
    ],
  },
  {
    name: 'defaultResponse fills stub responses and answers misses',
    imposter: {
      protocol: 'http',
      defaultResponse: { statusCode: 418, headers: { 'X-Default': 'yes' }, body: 'default body' },
      stubs: [{ predicates: [{ equals: { path: '/hit' } }], responses: [{ is: { body: 'hit' } }] }],
    },
    requests: [
      { path: '/hit', expect: 'hit' },
      { path: '/miss', expect: 'default body' },
    ],
  },
  {
    name: 'no stub matches: mountebank default response',
    imposter: { protocol: 'http', stubs: [] },
    requests: [
      { path: '/', expect: '' },
      { method: 'DELETE', path: '/x?y=1', expect: '' },
      { method: 'HEAD', path: '/' },
    ],
  },
  {
    name: 'allowCORS preflight and simple request',
    imposter: { protocol: 'http', allowCORS: true, stubs: [{ responses: [{ is: { body: 'cors' } }] }] },
    requests: [
      {
        method: 'OPTIONS',
        path: '/res',
        headers: { origin: 'http://example.test', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-custom' },
      },
      { path: '/res', headers: { origin: 'http://example.test' }, expect: 'cors' },
    ],
  },
];

const test = suite('differential: predicates and responses');
const ready = pairForSuite(test);

for (const c of cases) {
  test(c.name, () =>
    assertSameAnswers(
      ready(),
      c.imposter,
      c.requests.map((r) => ({ ...r, options: { headers: r.headers, body: r.body } })),
    ),
  );
}

test.run();

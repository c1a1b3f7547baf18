/**
 * The (predicate, requests) matrix shared by the differential test against mountebank 2.9.1.
 * Requests are sent over HTTP, so they carry whatever node's client adds (Host, Connection...).
 */
export interface CaseRequest {
  method?: string;
  /** Path plus optional query string. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string;
}

export interface MatchCase {
  name: string;
  predicate: unknown;
  requests: CaseRequest[];
}

const json = (body: unknown, extra: Record<string, string> = {}): CaseRequest => ({
  method: 'POST',
  path: '/',
  headers: { 'Content-Type': 'application/json', ...extra },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const body = (text: string): CaseRequest => ({ method: 'POST', path: '/', body: text });
const get = (path: string, headers?: Record<string, string | string[]>): CaseRequest => ({ path, headers });
const form = (text: string): CaseRequest => ({ method: 'POST', path: '/', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: text });
const xml = (text: string): CaseRequest => ({ method: 'POST', path: '/', headers: { 'Content-Type': 'application/xml' }, body: text });

const queries = ['/?q=a', '/?q=A', '/?Q=a', '/?q=a&q=b', '/?q=b&q=a', '/?q=b', '/', '/?q=', '/?q=a&q=b&q=c', '/?q=abc'].map((path) => get(path));
const jsonBodies = [
  { name: 'bob', age: 3 },
  { name: 'Bob' },
  { NAME: 'bob' },
  { name: 'alice' },
  { age: '3' },
  { age: 3 },
  [{ name: 'bob' }, { other: 1 }],
  { name: ['bob', 'x'] },
  { tags: ['b', 'a', 'c'] },
  { tags: ['a'] },
  { nested: { x: 'Y', z: 1 } },
  { a: null },
  { a: 'null' },
  { a: true },
  { a: 'true' },
  {},
  { a: '' },
  { n: 5 },
  { n: '12345' },
].map((value) => json(value));
const textBodies = ['', 'hello', 'Hello World', 'abc', 'aXbc', 'x123', 'not json', '12', 'TRUE'].map(body);

export const cases: MatchCase[] = [
  // equals on scalar fields, case and key folding
  { name: 'equals method', predicate: { equals: { method: 'post' } }, requests: [get('/'), json({})] },
  { name: 'equals path default folding', predicate: { equals: { path: '/Test' } }, requests: ['/test', '/TEST', '/test/x', '/Test'].map((p) => get(p)) },
  { name: 'equals path caseSensitive', predicate: { equals: { path: '/Test' }, caseSensitive: true }, requests: ['/test', '/Test'].map((p) => get(p)) },
  { name: 'equals field key folded', predicate: { equals: { Method: 'get' } }, requests: [get('/'), json({})] },
  { name: 'equals field key caseSensitive', predicate: { equals: { Method: 'GET' }, caseSensitive: true }, requests: [get('/')] },
  { name: 'equals method and path', predicate: { equals: { method: 'GET', path: '/a' } }, requests: [get('/a'), get('/b'), { method: 'POST', path: '/a' }] },
  { name: 'equals unknown field empty', predicate: { equals: { foo: '' } }, requests: [get('/')] },
  { name: 'equals unknown field', predicate: { equals: { foo: 'x' } }, requests: [get('/')] },
  { name: 'equals number top-level', predicate: { equals: 5 }, requests: [get('/')] },
  { name: 'equals string top-level', predicate: { equals: 'x' }, requests: [get('/')] },
  { name: 'equals empty string top-level', predicate: { equals: '' }, requests: [get('/')] },
  { name: 'equals empty object', predicate: { equals: {} }, requests: [get('/')] },
  { name: 'equals null', predicate: { equals: null }, requests: [get('/')] },
  // query
  { name: 'equals query', predicate: { equals: { query: { q: 'A' } } }, requests: queries },
  { name: 'equals query caseSensitive', predicate: { equals: { query: { q: 'a' } }, caseSensitive: true }, requests: queries },
  { name: 'equals query keyCaseSensitive', predicate: { equals: { query: { q: 'a' } }, keyCaseSensitive: true }, requests: queries },
  {
    name: 'equals query values sensitive keys folded',
    predicate: { equals: { query: { Q: 'a' } }, caseSensitive: true, keyCaseSensitive: false },
    requests: queries,
  },
  { name: 'equals query array', predicate: { equals: { query: { q: ['a', 'b'] } } }, requests: queries },
  { name: 'equals query empty value', predicate: { equals: { query: { q: '' } } }, requests: queries },
  { name: 'equals query number', predicate: { equals: { query: { q: 12 } } }, requests: [get('/?q=12'), get('/?q=1')] },
  { name: 'deepEquals query empty', predicate: { deepEquals: { query: {} } }, requests: queries },
  { name: 'deepEquals query', predicate: { deepEquals: { query: { q: 'a' } } }, requests: [...queries, get('/?q=a&r=1')] },
  { name: 'deepEquals query array', predicate: { deepEquals: { query: { q: ['a', 'b'] } } }, requests: queries },
  { name: 'contains query', predicate: { contains: { query: { q: 'b' } } }, requests: queries },
  { name: 'matches query', predicate: { matches: { query: { q: '^[A-B]$' } } }, requests: queries },
  { name: 'exists query true', predicate: { exists: { query: { q: true } } }, requests: queries },
  { name: 'exists query false', predicate: { exists: { query: { q: false } } }, requests: queries },
  { name: 'exists query object', predicate: { exists: { query: true } }, requests: [get('/')] },
  // headers, repeated values
  {
    name: 'equals header',
    predicate: { equals: { headers: { 'X-Test': 'Yes' } } },
    requests: [get('/', { 'X-Test': 'yes' }), get('/', { 'x-test': 'YES' }), get('/', { 'X-Test': ['no', 'yes'] }), get('/'), get('/', { 'X-Test': 'no' })],
  },
  {
    name: 'equals header caseSensitive',
    predicate: { equals: { headers: { 'X-Test': 'Yes' } }, caseSensitive: true },
    requests: [get('/', { 'X-Test': 'Yes' }), get('/', { 'x-test': 'Yes' }), get('/', { 'X-Test': 'yes' })],
  },
  {
    name: 'not equals repeated header',
    predicate: { not: { equals: { headers: { 'X-A': 'b' } } } },
    requests: [get('/', { 'X-A': ['b', 'c'] }), get('/', { 'X-A': 'c' }), get('/')],
  },
  { name: 'contains header', predicate: { contains: { headers: { 'content-type': 'JSON' } } }, requests: [json({}), body('x')] },
  {
    name: 'matches header',
    predicate: { matches: { headers: { 'x-id': '^[A-F]+$' } } },
    requests: [get('/', { 'X-Id': 'abc' }), get('/', { 'X-Id': 'xyz' }), get('/')],
  },
  { name: 'exists header', predicate: { exists: { headers: { 'X-A': true } } }, requests: [get('/', { 'X-A': 'b' }), get('/', { 'x-a': '' }), get('/')] },
  {
    name: 'header JSON value',
    predicate: { equals: { headers: { 'X-J': { a: 'b' } } } },
    requests: [get('/', { 'X-J': '{"a":"B"}' }), get('/', { 'X-J': 'x' })],
  },
  // bodies as text
  { name: 'equals body', predicate: { equals: { body: 'Hello' } }, requests: textBodies },
  { name: 'equals body empty', predicate: { equals: { body: '' } }, requests: [get('/'), body('x')] },
  { name: 'contains body', predicate: { contains: { body: 'World' } }, requests: textBodies },
  { name: 'startsWith body', predicate: { startsWith: { body: 'HEL' } }, requests: textBodies },
  { name: 'endsWith body', predicate: { endsWith: { body: 'C' } }, requests: textBodies },
  { name: 'endsWith body caseSensitive', predicate: { endsWith: { body: 'C' }, caseSensitive: true }, requests: textBodies },
  { name: 'matches body', predicate: { matches: { body: '\\W' } }, requests: textBodies },
  { name: 'matches body caseSensitive', predicate: { matches: { body: '^H' }, caseSensitive: true }, requests: textBodies },
  { name: 'matches body number', predicate: { matches: { body: 12 } }, requests: textBodies },
  { name: 'exists body true', predicate: { exists: { body: true } }, requests: [get('/'), body('x')] },
  { name: 'exists body false', predicate: { exists: { body: false } }, requests: [get('/'), body('x')] },
  { name: 'except body', predicate: { equals: { body: 'ac' }, except: 'B' }, requests: textBodies },
  { name: 'except digits', predicate: { equals: { body: 'x' }, except: '\\d+' }, requests: textBodies },
  { name: 'except caseSensitive', predicate: { equals: { body: 'aXbc' }, except: 'x', caseSensitive: true }, requests: textBodies },
  { name: 'except in expected', predicate: { equals: { body: 'hello world' }, except: 'world' }, requests: textBodies },
  { name: 'matches except', predicate: { matches: { body: '^abc$' }, except: 'X' }, requests: textBodies },
  { name: 'matches except case-sensitive', predicate: { matches: { body: '^abc$' }, except: 'x' }, requests: textBodies },
  { name: 'except path', predicate: { equals: { path: '/x' }, except: '^/api' }, requests: [get('/api/x'), get('/x'), get('/API/x')] },
  { name: 'except invalid', predicate: { equals: { body: 'x' }, except: '(' }, requests: [] },
  // bodies as JSON
  { name: 'equals JSON subset', predicate: { equals: { body: { name: 'Bob' } } }, requests: jsonBodies },
  { name: 'equals JSON caseSensitive', predicate: { equals: { body: { name: 'Bob' } }, caseSensitive: true }, requests: jsonBodies },
  { name: 'equals JSON number', predicate: { equals: { body: { age: 3 } } }, requests: jsonBodies },
  { name: 'equals JSON array', predicate: { equals: { body: { tags: ['a', 'b'] } } }, requests: jsonBodies },
  { name: 'equals JSON nested', predicate: { equals: { body: { nested: { x: 'y' } } } }, requests: jsonBodies },
  { name: 'equals JSON null', predicate: { equals: { body: { a: null } } }, requests: jsonBodies },
  { name: 'equals JSON boolean', predicate: { equals: { body: { a: true } } }, requests: jsonBodies },
  { name: 'equals JSON string index', predicate: { equals: { body: { 0: 'h' } } }, requests: textBodies },
  { name: 'contains JSON', predicate: { contains: { body: { name: 'O' } } }, requests: jsonBodies.slice(0, 4) },
  { name: 'contains JSON number', predicate: { contains: { body: { age: 3 } } }, requests: [json({ age: 3 }), json({ age: '13' })] },
  { name: 'startsWith JSON', predicate: { startsWith: { body: { name: 'b' } } }, requests: jsonBodies.slice(0, 4) },
  { name: 'endsWith JSON number', predicate: { endsWith: { body: { n: 5 } } }, requests: [json({ n: '12345' }), json({ n: '567' }), json({ n: '12' })] },
  { name: 'matches JSON', predicate: { matches: { body: { name: '^b' } } }, requests: jsonBodies.slice(0, 4) },
  { name: 'matches JSON bad regex', predicate: { matches: { body: { a: '(' } } }, requests: [json({ a: 'x' }), body('plain')] },
  { name: 'exists JSON true', predicate: { exists: { body: { a: true } } }, requests: jsonBodies },
  { name: 'exists JSON false', predicate: { exists: { body: { a: false } } }, requests: jsonBodies },
  {
    name: 'deepEquals JSON',
    predicate: { deepEquals: { body: { a: 1, b: [1, 2] } } },
    requests: [json({ b: [2, 1], a: 1 }), json({ a: 1, b: [1, 2], c: 3 }), json({ a: '1', b: ['1', '2'] }), json({ A: 1, b: [1, 2] })],
  },
  {
    name: 'deepEquals JSON caseSensitive',
    predicate: { deepEquals: { body: { a: 'X' } }, caseSensitive: true },
    requests: [json({ a: 'X' }), json({ a: 'x' })],
  },
  { name: 'deepEquals JSON null', predicate: { deepEquals: { body: { a: null } } }, requests: jsonBodies },
  { name: 'deepEquals body text', predicate: { deepEquals: { body: 'Hello' } }, requests: textBodies },
  { name: 'deepEquals method', predicate: { deepEquals: { method: 'get' } }, requests: [get('/'), json({})] },
  { name: 'deepEquals string top-level', predicate: { deepEquals: 'x' }, requests: [get('/')] },
  { name: 'deepEquals null', predicate: { deepEquals: null }, requests: [get('/')] },
  // form
  { name: 'equals form', predicate: { equals: { form: { a: '1' } } }, requests: [form('a=1&b=2'), form('a=2'), json({ a: '1' }), get('/')] },
  { name: 'exists form false', predicate: { exists: { form: { a: false } } }, requests: [form('b=1'), get('/')] },
  { name: 'exists form true', predicate: { exists: { form: { a: true } } }, requests: [form('a=1'), form('a=1&a=2')] },
  { name: 'deepEquals form', predicate: { deepEquals: { form: { a: '1' } } }, requests: [form('a=1'), form('a=1&b=2')] },
  // other fields
  { name: 'exists ip', predicate: { exists: { ip: true } }, requests: [get('/')] },
  { name: 'contains requestFrom', predicate: { contains: { requestFrom: '127.0.0.1' } }, requests: [get('/')] },
  { name: 'startsWith path', predicate: { startsWith: { path: '/API' } }, requests: ['/api/x', '/API', '/v1/api', '/ap'].map((p) => get(p)) },
  { name: 'endsWith path', predicate: { endsWith: { path: '.json' } }, requests: ['/a.json', '/a.JSON', '/a.jsonx'].map((p) => get(p)) },
  { name: 'matches path', predicate: { matches: { path: '^/Item/\\d+$' } }, requests: ['/item/12', '/item/x', '/ITEM/1'].map((p) => get(p)) },
  {
    name: 'matches path caseSensitive',
    predicate: { matches: { path: '^/Item/\\d+$' }, caseSensitive: true },
    requests: ['/item/12', '/Item/1'].map((p) => get(p)),
  },
  { name: 'matches path number', predicate: { matches: { path: 5 } }, requests: ['/5', '/x'].map((p) => get(p)) },
  { name: 'matches invalid', predicate: { matches: { path: '(' } }, requests: [] },
  // logic
  { name: 'not', predicate: { not: { equals: { method: 'GET' } } }, requests: [get('/'), json({})] },
  { name: 'not not', predicate: { not: { not: { equals: { path: '/a' } } } }, requests: [get('/a'), get('/b')] },
  { name: 'and', predicate: { and: [{ equals: { method: 'POST' } }, { contains: { body: 'x' } }] }, requests: [body('x'), body('y'), get('/x')] },
  { name: 'or', predicate: { or: [{ equals: { path: '/a' } }, { equals: { path: '/b' } }] }, requests: ['/a', '/b', '/c'].map((p) => get(p)) },
  { name: 'or with bad tail', predicate: { or: [{ equals: { path: '/' } }, {}] }, requests: [get('/'), get('/x')] },
  { name: 'and with bad tail', predicate: { and: [{ equals: { path: '/' } }, {}] }, requests: [] },
  { name: 'and empty', predicate: { and: [] }, requests: [get('/')] },
  { name: 'or empty', predicate: { or: [] }, requests: [get('/')] },
  { name: 'and object', predicate: { and: { path: '/' } }, requests: [] },
  { name: 'or string', predicate: { or: 'x' }, requests: [] },
  { name: 'not number', predicate: { not: 5 }, requests: [] },
  { name: 'not empty', predicate: { not: {} }, requests: [] },
  { name: 'missing operator', predicate: { foo: { path: '/' } }, requests: [] },
  { name: 'two operators first wins', predicate: { startsWith: { path: '/a' }, equals: { path: '/zzz' } }, requests: [get('/ab'), get('/zzz')] },
  // jsonpath
  { name: 'jsonpath equals', predicate: { equals: { body: 'Bob' }, jsonpath: { selector: '$.name' } }, requests: jsonBodies },
  { name: 'jsonpath uppercase selector', predicate: { equals: { body: 'bob' }, jsonpath: { selector: '$.NAME' } }, requests: jsonBodies.slice(0, 4) },
  {
    name: 'jsonpath keyCaseSensitive',
    predicate: { equals: { body: 'bob' }, jsonpath: { selector: '$.NAME' }, keyCaseSensitive: true },
    requests: jsonBodies.slice(0, 4),
  },
  {
    name: 'jsonpath caseSensitive',
    predicate: { equals: { body: 'Bob' }, jsonpath: { selector: '$.name' }, caseSensitive: true },
    requests: jsonBodies.slice(0, 4),
  },
  {
    name: 'jsonpath many',
    predicate: { equals: { body: 'x' }, jsonpath: { selector: '$..tag' } },
    requests: [json({ a: { tag: 'x' }, b: { tag: 'y' } }), json({ a: { tag: 'z' } })],
  },
  {
    name: 'jsonpath deepEquals many',
    predicate: { deepEquals: { body: ['x', 'y'] }, jsonpath: { selector: '$..tag' } },
    requests: [json({ a: { tag: 'y' }, b: { tag: 'x' } }), json({ a: { tag: 'x' } }), json({ a: { tag: 'x' }, b: { tag: 'y' }, c: { tag: 'z' } })],
  },
  { name: 'jsonpath deepEquals number', predicate: { deepEquals: { body: 5 }, jsonpath: { selector: '$.n' } }, requests: jsonBodies },
  { name: 'jsonpath exists', predicate: { exists: { body: true }, jsonpath: { selector: '$.a' } }, requests: jsonBodies },
  { name: 'jsonpath matches', predicate: { matches: { body: '^B' }, jsonpath: { selector: '$.name' } }, requests: jsonBodies.slice(0, 4) },
  { name: 'jsonpath selects method too', predicate: { equals: { method: 'POST' }, jsonpath: { selector: '$.a' } }, requests: [json({ a: 1 })] },
  {
    name: 'jsonpath index',
    predicate: { equals: { body: 1 }, jsonpath: { selector: '$.items[0]' } },
    requests: [json({ items: [1, 2] }), json({ items: [2, 1] })],
  },
  {
    name: 'jsonpath object value',
    predicate: { equals: { body: { b: 'c' } }, jsonpath: { selector: '$.a' } },
    requests: [json({ a: { b: 'C' } }), json({ a: 'c' })],
  },
  { name: 'jsonpath no selector', predicate: { equals: { body: 'x' }, jsonpath: {} }, requests: [] },
  { name: 'jsonpath no selector keyCaseSensitive', predicate: { equals: { body: 'x' }, jsonpath: {}, keyCaseSensitive: true }, requests: [json({ a: 1 })] },
  {
    name: 'jsonpath with except',
    predicate: { equals: { body: 'bob' }, jsonpath: { selector: '$.name' }, except: '!' },
    requests: [json({ name: 'bob!' }), json({ name: 'bob' })],
  },
  // xpath
  {
    name: 'xpath equals',
    predicate: { equals: { body: 'Bob' }, xpath: { selector: '//name' } },
    requests: [
      xml('<root><name>Bob</name></root>'),
      xml('<root><NAME>bob</NAME></root>'),
      body('not xml'),
      xml('<root><name>a</name><name>bob</name></root>'),
      xml('<root><name>alice</name></root>'),
    ],
  },
  {
    name: 'xpath caseSensitive',
    predicate: { equals: { body: 'Bob' }, xpath: { selector: '//Name' }, caseSensitive: true },
    requests: [xml('<root><Name>Bob</Name></root>'), xml('<root><name>Bob</name></root>'), xml('<root><Name>bob</Name></root>')],
  },
  {
    name: 'xpath namespaces',
    predicate: { equals: { body: 'x' }, xpath: { selector: '//a:name', ns: { a: 'http://example.com/NS' } } },
    requests: [
      xml('<root xmlns:a="http://example.com/ns"><a:name>x</a:name></root>'),
      xml('<root xmlns:b="http://example.com/NS"><b:name>X</b:name></root>'),
      xml('<root><name>x</name></root>'),
    ],
  },
  {
    name: 'xpath attribute',
    predicate: { equals: { body: 'v' }, xpath: { selector: '//item/@id' } },
    requests: [xml('<r><item id="V"/></r>'), xml('<r><item/></r>')],
  },
  {
    name: 'xpath count',
    predicate: { equals: { body: 2 }, xpath: { selector: 'count(//item)' } },
    requests: [xml('<r><item/><item/></r>'), xml('<r><item/></r>')],
  },
  {
    name: 'xpath exists',
    predicate: { exists: { body: true }, xpath: { selector: '//empty' } },
    requests: [xml('<r><empty/></r>'), xml('<r/>'), xml('<r><empty>x</empty></r>')],
  },
  {
    name: 'xpath matches',
    predicate: { matches: { body: '^\\d+$' }, xpath: { selector: '//n' } },
    requests: [xml('<r><n>12</n></r>'), xml('<r><n>x</n></r>')],
  },
  {
    name: 'xpath deepEquals',
    predicate: { deepEquals: { body: ['a', 'b'] }, xpath: { selector: '//n' } },
    requests: [xml('<r><n>b</n><n>a</n></r>'), xml('<r><n>a</n></r>')],
  },
  // xpath on plain documents (read without xmldom) and on the shapes left to xmldom, side by side
  {
    name: 'xpath default namespace, prefixes remapped per element',
    predicate: { equals: { body: 'v' }, xpath: { selector: '/d:r/p:item', ns: { d: 'urn:d', p: 'urn:p' } } },
    requests: [
      xml('<r xmlns="urn:d" xmlns:q="urn:p"><q:item>v</q:item></r>'),
      xml('<r xmlns="urn:d"><item xmlns="urn:p">v</item></r>'),
      xml('<r xmlns="urn:d"><item>v</item></r>'),
      xml('<r xmlns:q="urn:p"><q:item>v</q:item></r>'),
      xml('<r xmlns="urn:d" xmlns:q="urn:p"><q:item xmlns:q="urn:x">v</q:item></r>'),
    ],
  },
  {
    name: 'xpath unprefixed name under a default namespace, undeclared prefix',
    predicate: { equals: { body: 'v' }, xpath: { selector: '//item' } },
    requests: [xml('<r xmlns="urn:d"><item>v</item></r>'), xml('<r><x:item>v</x:item></r>'), xml('<r xmlns="urn:d"><item xmlns="">v</item></r>')],
  },
  {
    name: 'xpath text() and //text() in document order',
    predicate: { deepEquals: { body: ['a', 'b', 'c'] }, xpath: { selector: '//n//text()' } },
    requests: [
      xml('<r><n>a<m>b</m>c</n></r>'),
      xml('<r><n>a<n>b</n>c</n></r>'),
      xml('<r><n>c<m>b</m>a</n></r>'),
      xml('<r><n>a<!-- x -->b<![CDATA[c]]></n></r>'),
    ],
  },
  {
    name: 'xpath nested same-name elements and wildcard',
    predicate: { equals: { body: 'undefined' }, xpath: { selector: '/r/*' } },
    requests: [xml('<r><a><b>x</b></a></r>'), xml('<r><a>x<b/></a></r>'), xml('<r><a/></r>'), xml('<r><a><!-- c --></a></r>')],
  },
  {
    name: 'xpath several matches with duplicates collapsed by document order',
    predicate: { deepEquals: { body: ['1', '2', '3'] }, xpath: { selector: '//a//b' } },
    requests: [xml('<r><a><b>1</b><a><b>2</b></a><b>3</b></a></r>'), xml('<r><a><b>1</b></a><b>2</b><a><b>3</b></a></r>')],
  },
  {
    name: 'xpath attribute values: entities, character references, whitespace',
    predicate: { equals: { body: 'a&b "c"  d\u00e9' }, xpath: { selector: '//item/@id' } },
    requests: [
      xml('<r><item id="a&amp;b &quot;c&quot;\td&#233;"/></r>'),
      xml('<r><item id=\'a&amp;b "c"\nd&#xe9;\'/></r>'),
      xml('<r><item id="a&amp;b &quot;c&quot; &#9;d&#233;"/></r>'),
      xml('<r><item id="a&b &quot;c&quot;\td&#233;"/></r>'),
    ],
  },
  {
    name: 'xpath text with entities, CRLF line endings, unknown entities',
    predicate: { equals: { body: '<a>\nb &unknown;' }, xpath: { selector: '/r/text()' } },
    requests: [xml('<r>&lt;a&gt;\r\nb &amp;unknown;</r>'), xml('<r>&lt;a&gt;\rb &unknown;</r>'), xml('<r>&lt;a&gt;\nb &#38;unknown;</r>')],
  },
  {
    name: 'xpath prefixed attributes and xml:lang',
    predicate: { equals: { body: 'en' }, xpath: { selector: '//p:e/@xml:lang', ns: { p: 'urn:p', xml: 'http://www.w3.org/XML/1998/namespace' } } },
    requests: [xml('<p:e xmlns:p="urn:p" xml:lang="en"/>'), xml('<e xmlns="urn:p" xml:lang="en"/>'), xml('<p:e xmlns:p="urn:q" xml:lang="en"/>')],
  },
  {
    name: 'xpath on malformed and unusual documents',
    predicate: { equals: { body: 'v' }, xpath: { selector: '//item' } },
    requests: [
      xml('<r><item>v</item>'),
      xml('<r><item>v</r>'),
      xml('<r><item>v</ITEM></item></r>'),
      xml('<?xml version="1.0"?>\n<!DOCTYPE r>\n<r><item>v</item></r>'),
      xml('<r><item>v</item></r><!-- after -->'),
      xml('<r><item>v</item></r>trailing'),
      xml('text before<r><item>v</item></r>'),
      xml('<r><item a="1" a="2">v</item></r>'),
      xml('<r><item a=1>v</item></r>'),
      xml('<r><item>v</item ></r>'),
      xml('<r><item>v</item></r><item>w</item>'),
      xml(''),
      body('v'),
    ],
  },
  {
    name: 'xpath prefix missing from ns',
    predicate: { equals: { body: 'v' }, xpath: { selector: '//q:item', ns: { p: 'urn:p' } } },
    requests: [xml('<r><item>v</item></r>'), body('no markup'), xml('<r/>')],
  },
  {
    name: 'xpath with except and case folding',
    predicate: { equals: { body: 'bob' }, xpath: { selector: '//Name' }, except: '-\\d+' },
    requests: [xml('<R><NAME>Bob-12</NAME></R>'), xml('<r><name>bob</name></r>'), xml('<r><name>bob-x</name></r>')],
  },
  {
    name: 'xpath exists on text() and attributes',
    predicate: { exists: { body: false }, xpath: { selector: '/r/e/@id' } },
    requests: [xml('<r><e/></r>'), xml('<r><e id=""/></r>'), xml('<r><e id="1"/><e/></r>')],
  },
  { name: 'xpath malformed', predicate: { equals: { body: 'x' }, xpath: { selector: '!!' } }, requests: [] },
  { name: 'xpath no selector', predicate: { equals: { body: 'x' }, xpath: {} }, requests: [] },
  // inject
  { name: 'inject', predicate: { inject: 'function (config) { return config.request.path === "/inj"; }' }, requests: [get('/inj'), get('/x')] },
  { name: 'inject old signature', predicate: { inject: 'function (request) { return request.method === "POST"; }' }, requests: [get('/'), body('x')] },
  { name: 'not inject', predicate: { not: { inject: 'function (config) { return config.request.path === "/inj"; }' } }, requests: [get('/inj'), get('/x')] },
];

/** docs/front-door.md route table validation: every rule, messages naming the route, the table as a unit. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRoutes } from '../../../admin/front-door/index.js';
import { isSvcError } from '../../../engine/model/index.js';

const target = { port: 4545 };

/** The messages a table is rejected with (fails the test when it is accepted). */
function rejection(routes: unknown): string[] {
  try {
    parseRoutes(routes);
  } catch (err) {
    assert.ok(isSvcError(err), `expected an SvcError, got ${String(err)}`);
    if (!isSvcError(err)) return [];
    assert.is(err.status, 400);
    for (const entry of err.entries) assert.is(entry.type, 'bad_data');
    return err.entries.map((entry) => entry.message);
  }
  assert.unreachable(`accepted ${JSON.stringify(routes)}`);
  return [];
}

const invalid: Array<[string, unknown[], RegExp]> = [
  [
    'duplicate id',
    [
      { id: 'a', target },
      { id: 'a', match: { method: 'GET' }, target },
    ],
    /^route "a": duplicate id$/,
  ],
  [
    'identical match at one priority',
    [
      { id: 'one', match: { host: 'a.test', path_prefix: '/x' }, target },
      { id: 'two', match: { host: 'a.test', path_prefix: '/x' }, target: { port: 4546 } },
    ],
    /^route "two": same priority \(0\) and identical match as route "one"$/,
  ],
  [
    'two empty matches (absent and {}) at one priority',
    [
      { id: 'a', target },
      { id: 'b', match: {}, target },
    ],
    /route "b": .*identical match as route "a"/,
  ],
  [
    'strip_prefix without path_prefix',
    [{ id: 's', match: { host: 'a.test' }, target: { port: 1, strip_prefix: true } }],
    /route "s": 'target.strip_prefix' needs 'match.path_prefix'/,
  ],
  ['* inside a label', [{ id: 'h1', match: { host: 'a*.test' }, target }], /route "h1": 'match.host' "a\*.test" may use '\*' only as one leading '\*.' label/],
  ['* as a later label', [{ id: 'h2', match: { host: 'a.*.test' }, target }], /route "h2": .*only as one leading/],
  ['two wildcard labels', [{ id: 'h3', match: { host: '*.*.test' }, target }], /route "h3": .*only as one leading/],
  ['bare *', [{ id: 'h4', match: { host: '*' }, target }], /route "h4": .*only as one leading/],
  ['* without a dot', [{ id: 'h5', match: { host: '*test' }, target }], /route "h5": .*only as one leading/],
  ['*. with nothing after', [{ id: 'h6', match: { host: '*.' }, target }], /route "h6": 'match.host' "\*\." is not a host name/],
  ['host with a port', [{ id: 'h7', match: { host: 'a.test:80' }, target }], /route "h7": 'match.host' .*not a host name/],
  ['empty host', [{ id: 'h8', match: { host: '' }, target }], /route "h8": 'match.host' must be a non-empty string/],
  [
    'path_prefix without /',
    [{ id: 'p', match: { path_prefix: 'api' }, target }],
    /route "p": 'match.path_prefix' must be a string starting with '\/', got "api"/,
  ],
  ['path_prefix with a query', [{ id: 'q', match: { path_prefix: '/api?x=1' }, target }], /route "q": 'match.path_prefix' .*path only/],
  ['method with a space', [{ id: 'm1', match: { method: 'GE T' }, target }], /route "m1": 'match.method' "GE T" is not a valid HTTP method/],
  ['empty method', [{ id: 'm2', match: { method: '' }, target }], /route "m2": 'match.method' "" is not a valid HTTP method/],
  ['method not a string', [{ id: 'm3', match: { method: 7 }, target }], /route "m3": 'match.method' 7/],
  [
    'header clause without value',
    [{ id: 'hd', match: { headers: [{ name: 'x-a' }] }, target }],
    /route "hd": 'match.headers\[0\]' must be \{name: string, value: string\}/,
  ],
  ['headers as an object', [{ id: 'ho', match: { headers: { 'x-a': '1' } }, target }], /route "ho": 'match.headers' must be a list/],
  ['bad header name', [{ id: 'hn', match: { headers: [{ name: 'x a', value: '1' }] }, target }], /route "hn": .*not a valid header name/],
  ['missing id', [{ target }], /^route #1: 'id' must be a non-empty string$/],
  ['missing target', [{ id: 't0' }], /route "t0": 'target' must be an object/],
  ['port out of range', [{ id: 't1', target: { port: 70000 } }], /route "t1": 'target.port' must be a port number/],
  ['set_host with a space', [{ id: 't2', target: { port: 1, set_host: 'a b' } }], /route "t2": 'target.set_host'/],
  ['priority not a number', [{ id: 'pr', priority: 'high', target }], /route "pr": 'priority' must be a number/],
  ['enabled not a boolean', [{ id: 'en', enabled: 'yes', target }], /route "en": 'enabled' must be a boolean/],
  ['misspelt field', [{ id: 'typo', match: { path: '/x' }, target }], /route "typo": unknown field 'match.path'/],
  ['route not an object', ['nope'], /^route #1: must be an object$/],
];

for (const [name, routes, message] of invalid) {
  test(`rejected: ${name}`, () => {
    const messages = rejection(routes);
    assert.ok(
      messages.some((m) => message.test(m)),
      `${message} not in ${JSON.stringify(messages)}`,
    );
  });
}

test('accepted: same match at different priorities, or with one route disabled', () => {
  const match = { path_prefix: '/x' };
  assert.is(
    parseRoutes([
      { id: 'a', match, target },
      { id: 'b', priority: 1, match, target },
    ]).length,
    2,
  );
  assert.is(
    parseRoutes([
      { id: 'a', match, target },
      { id: 'b', enabled: false, match, target },
    ]).length,
    2,
  );
});

test('accepted: a full route reads back typed, with defaults', () => {
  const [full, bare] = parseRoutes([
    {
      id: 'full',
      priority: 5,
      enabled: true,
      match: { host: '*.Example.TEST', path_prefix: '/api', headers: [{ name: 'X-Tenant', value: 'Blue' }], method: 'PATCH' },
      target: { port: 4545, strip_prefix: true, set_host: 'backend:8080' },
    },
    { id: 'bare', target: { port: 1 } },
  ]);
  assert.equal(full, {
    id: 'full',
    priority: 5,
    enabled: true,
    hostSuffix: '.example.test',
    pathPrefix: '/api',
    headers: [{ name: 'x-tenant', value: 'Blue' }],
    method: 'PATCH',
    target: { port: 4545, stripPrefix: true, setHost: 'backend:8080' },
  });
  assert.equal(bare, { id: 'bare', priority: 0, enabled: true, headers: [], target: { port: 1, stripPrefix: false } });
});

test('an absent table is empty; a table that is neither a list nor an object is rejected', () => {
  assert.equal(parseRoutes(undefined), []);
  assert.match(rejection('routes')[0], /'routes' must be a list of routes or an object keyed by route id/);
});

test('the object form takes each key as the route id; a differing id is named', () => {
  const [a] = parseRoutes({ a: { match: { method: 'GET' }, target } });
  assert.is(a.id, 'a');
  assert.match(rejection({ b: { id: 'c', target } })[0], /route "b": its 'id' "c" differs from its key/);
});

test('the table is rejected as a unit, every problem listed with its route id', () => {
  const messages = rejection([
    { id: 'good', match: { path_prefix: '/ok' }, target },
    { id: 'bad-prefix', match: { path_prefix: 'x' }, target },
    { id: 'bad-method', match: { method: 'G(T' }, target },
  ]);
  assert.is(messages.length, 2, JSON.stringify(messages));
  assert.match(messages[0], /route "bad-prefix"/);
  assert.match(messages[1], /route "bad-method"/);
});

test.run();

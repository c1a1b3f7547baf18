/** docs/front-door.md matching and evaluation order, on the pure matcher. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RouteMatcher, hostOf, parseRoutes, prefixMatches, type RoutedRequest } from '../../../admin/front-door/index.js';

function request(method: string, url: string, headers: Record<string, string | string[]> = {}): RoutedRequest {
  const rawHeaders: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value]) rawHeaders.push(name, one);
  }
  return { method, url, rawHeaders };
}

/** The id of the route a request resolves to in `routes`, or null. */
function resolved(routes: unknown[], req: RoutedRequest): string | null {
  return new RouteMatcher(parseRoutes(routes)).resolve(req)?.id ?? null;
}

const target = { port: 4545 };

const hostCases: Array<[string, string | undefined, boolean]> = [
  ['api.test', 'api.test', true],
  ['api.test', 'API.Test', true],
  ['api.test', 'api.test:8080', true],
  ['API.TEST', 'api.test', true],
  ['api.test', 'other.test', false],
  ['api.test', 'x.api.test', false],
  ['api.test', undefined, false],
  ['*.a.b', 'x.a.b', true],
  ['*.a.b', 'X.A.B:443', true],
  ['*.a.b', 'y.x.a.b', true],
  ['*.a.b', 'a.b', false],
  ['*.a.b', 'xa.b', false],
  ['*.a.b', '.a.b', false],
  ['*.a.b', undefined, false],
  ['[::1]', '[::1]:8080', true],
];
for (const [pattern, host, expected] of hostCases) {
  test(`host ${pattern} ${expected ? 'matches' : 'does not match'} ${String(host)}`, () => {
    const headers: Record<string, string> = host === undefined ? {} : { Host: host };
    assert.is(resolved([{ id: 'r', match: { host: pattern }, target }], request('GET', '/', headers)), expected ? 'r' : null);
  });
}

const prefixCases: Array<[string, string, boolean]> = [
  ['/api', '/api', true],
  ['/api', '/api/', true],
  ['/api', '/api/users', true],
  ['/api', '/api?x=1', true],
  ['/api', '/apix', false],
  ['/api', '/ap', false],
  ['/api', '/API', false],
  ['/api/', '/api/users', true],
  ['/api/', '/api', false],
  ['/', '/anything', true],
  ['/a/b', '/a/b/c', true],
  ['/a/b', '/a/bc', false],
];
for (const [prefix, url, expected] of prefixCases) {
  test(`path_prefix ${prefix} ${expected ? 'matches' : 'does not match'} ${url}`, () => {
    assert.is(resolved([{ id: 'r', match: { path_prefix: prefix }, target }], request('GET', url)), expected ? 'r' : null);
  });
}

test('prefixMatches and hostOf, directly', () => {
  assert.ok(prefixMatches('/v1/x', '/v1'));
  assert.not.ok(prefixMatches('/v10', '/v1'));
  assert.is(hostOf(['HOST', 'Example.Test:99']), 'example.test');
  assert.is(hostOf(['Accept', '*/*']), undefined);
});

test('header clauses: names case-insensitive, values case-sensitive, every clause needed', () => {
  const routes = [
    {
      id: 'h',
      match: {
        headers: [
          { name: 'X-Tenant', value: 'Blue' },
          { name: 'x-env', value: 'qa' },
        ],
      },
      target,
    },
  ];
  assert.is(resolved(routes, request('GET', '/', { 'x-tenant': 'Blue', 'X-ENV': 'qa' })), 'h');
  assert.is(resolved(routes, request('GET', '/', { 'x-tenant': 'blue', 'x-env': 'qa' })), null);
  assert.is(resolved(routes, request('GET', '/', { 'x-tenant': 'Blue' })), null);
  assert.is(resolved(routes, request('GET', '/', { 'x-tenant': ['Red', 'Blue'], 'x-env': 'qa' })), 'h', 'any one of repeated values');
});

test('method: exact', () => {
  const routes = [{ id: 'm', match: { method: 'POST' }, target }];
  assert.is(resolved(routes, request('POST', '/')), 'm');
  assert.is(resolved(routes, request('GET', '/')), null);
  assert.is(resolved([{ id: 'l', match: { method: 'post' }, target }], request('POST', '/')), null);
});

test('an empty match matches everything; every declared clause must hold', () => {
  assert.is(resolved([{ id: 'any', target }], request('DELETE', '/x/y', { Host: 'h' })), 'any');
  const all = [{ id: 'all', match: { host: 'h.test', path_prefix: '/p', method: 'GET', headers: [{ name: 'a', value: '1' }] }, target }];
  assert.is(resolved(all, request('GET', '/p/q', { Host: 'h.test', a: '1' })), 'all');
  assert.is(resolved(all, request('PUT', '/p/q', { Host: 'h.test', a: '1' })), null);
  assert.is(resolved(all, request('GET', '/q', { Host: 'h.test', a: '1' })), null);
  assert.is(resolved(all, request('GET', '/p/q', { Host: 'g.test', a: '1' })), null);
  assert.is(resolved(all, request('GET', '/p/q', { Host: 'h.test', a: '2' })), null);
});

test('disabled routes are ignored', () => {
  const routes = [
    { id: 'off', enabled: false, priority: 9, target },
    { id: 'on', match: { method: 'GET' }, target },
  ];
  assert.is(resolved(routes, request('GET', '/')), 'on');
  assert.is(resolved(routes, request('PUT', '/')), null);
  assert.equal(
    new RouteMatcher(parseRoutes(routes)).order.map((r) => r.id),
    ['on'],
  );
  assert.is(new RouteMatcher(parseRoutes(routes)).size, 2);
});

const all = { Host: 'x.a.b', 'x-a': '1', 'x-b': '2' };
const orderCases: Array<[string, unknown[], string]> = [
  [
    'higher priority wins over specificity',
    [
      { id: 'specific', match: { host: 'x.a.b', path_prefix: '/long/path' }, target },
      { id: 'loose', priority: 1, target },
    ],
    'loose',
  ],
  [
    'exact host over wildcard',
    [
      { id: 'a-wild', match: { host: '*.a.b' }, target },
      { id: 'b-exact', match: { host: 'x.a.b' }, target },
    ],
    'b-exact',
  ],
  [
    'wildcard host over none',
    [
      { id: 'a-none', match: { path_prefix: '/long' }, target },
      { id: 'b-wild', match: { host: '*.a.b' }, target },
    ],
    'b-wild',
  ],
  [
    'host over a longer prefix',
    [
      { id: 'a-prefix', match: { path_prefix: '/long/path' }, target },
      { id: 'b-host', match: { host: '*.a.b', path_prefix: '/long' }, target },
    ],
    'b-host',
  ],
  [
    'longer prefix over shorter',
    [
      { id: 'a-short', match: { path_prefix: '/long' }, target },
      { id: 'b-long', match: { path_prefix: '/long/path' }, target },
    ],
    'b-long',
  ],
  [
    'prefix over headers',
    [
      {
        id: 'a-headers',
        match: {
          headers: [
            { name: 'x-a', value: '1' },
            { name: 'x-b', value: '2' },
          ],
        },
        target,
      },
      { id: 'b-prefix', match: { path_prefix: '/long', headers: [] }, target },
    ],
    'b-prefix',
  ],
  [
    'more header clauses over fewer',
    [
      { id: 'a-one', match: { headers: [{ name: 'x-a', value: '1' }] }, target },
      {
        id: 'b-two',
        match: {
          headers: [
            { name: 'x-a', value: '1' },
            { name: 'x-b', value: '2' },
          ],
        },
        target,
      },
    ],
    'b-two',
  ],
  [
    'a method clause adds no specificity: id ascending decides',
    [
      { id: 'c', match: { method: 'GET' }, target },
      { id: 'b', target },
    ],
    'b',
  ],
  [
    'id ascending among equals',
    [
      { id: 'zeta', match: { method: 'GET' }, target },
      { id: 'alpha', match: { headers: [] }, target },
    ],
    'alpha',
  ],
  [
    'a negative priority comes last',
    [
      { id: 'neg', priority: -1, match: { host: 'x.a.b' }, target },
      { id: 'zero', target },
    ],
    'zero',
  ],
];
for (const [name, routes, winner] of orderCases) {
  test(`order: ${name}`, () => {
    assert.is(resolved(routes, request('GET', '/long/path/x', all)), winner);
  });
}

test('order: the sorted table is precomputed and falls through to the next match', () => {
  const matcher = new RouteMatcher(
    parseRoutes([
      { id: 'c', target },
      { id: 'b', match: { path_prefix: '/api' }, target },
      { id: 'a', match: { host: 'a.test', path_prefix: '/api' }, target },
      { id: 'd', priority: 2, match: { method: 'PUT' }, target },
    ]),
  );
  assert.equal(
    matcher.order.map((r) => r.id),
    ['d', 'a', 'b', 'c'],
  );
  assert.is(matcher.resolve(request('GET', '/api/x', { Host: 'b.test' }))?.id, 'b');
  assert.is(matcher.resolve(request('GET', '/other', { Host: 'a.test' }))?.id, 'c');
});

test.run();

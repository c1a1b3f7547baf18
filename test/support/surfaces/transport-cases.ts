/**
 * One file of request→response expectations, run unchanged over every transport (as hono runs one
 * case file against every router). A transport that legitimately answers differently says so here, in
 * the case's `differs`, never in a per-transport copy of the case.
 */
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CaseRequest, CaseResponse, Trait, Transport } from './transports.js';

/** A string is compared as UTF-8 text; `json` parses the body; `base64` compares the bytes. */
export type BodyExpectation = string | { json: unknown } | { base64: string };

export interface Expectation {
  /** Required unless `noResponse`. */
  status?: number;
  /** The connection (HTTP/1) or stream (HTTP/2) ends without an HTTP response: a TCP fault. */
  noResponse?: true;
  /** A subset, names case-insensitive: a string is the values joined by ', ', an array the values one by one, null means absent. */
  headers?: Record<string, string | string[] | null>;
  body?: BodyExpectation;
  /** Lower bound only (a bound that holds however loaded the machine is). */
  minElapsedMs?: number;
}

export interface Exchange {
  request: CaseRequest;
  expect: Expectation;
}

export interface TransportCase {
  name: string;
  stubs: unknown[];
  /** Other imposter fields (defaultResponse, ...); protocol, port and TLS material belong to the transport. */
  imposter?: Record<string, unknown>;
  request: CaseRequest;
  expect: Expectation;
  /** Further exchanges on the same imposter, in order (cycling, repeat). */
  next?: Exchange[];
  /**
   * What a transport with this trait (or every trait of a `a+b` key) answers instead, merged over every
   * exchange's expectation, with the reason beside it.
   */
  differs?: Partial<Record<Trait | `${Trait}+${Trait}`, Partial<Expectation>>>;
}

const GET = (path: string, extra: Partial<CaseRequest> = {}): CaseRequest => ({ method: 'GET', path, ...extra });

/** The stub under test, then a catch-all answering 418 'miss', so a non-match is visible. */
function hitOrMiss(...predicates: unknown[]): unknown[] {
  return [{ predicates, responses: [{ is: { statusCode: 200, body: 'hit' } }] }, { responses: [{ is: { statusCode: 418, body: 'miss' } }] }];
}

const HIT: Expectation = { status: 200, body: 'hit' };
const MISS: Expectation = { status: 418, body: 'miss' };
const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10, 0x80]).toString('base64');

export const TRANSPORT_CASES: TransportCase[] = [
  // Predicates.
  {
    name: 'equals on method and path',
    stubs: hitOrMiss({ equals: { method: 'POST', path: '/orders' } }),
    request: { method: 'POST', path: '/orders', body: 'x' },
    expect: HIT,
    next: [{ request: GET('/orders'), expect: MISS }],
  },
  {
    name: 'equals on query ignores case of keys and values by default',
    stubs: hitOrMiss({ equals: { query: { name: 'alice' } } }),
    request: GET('/q', { query: { NAME: 'ALICE' } }),
    expect: HIT,
  },
  {
    name: 'caseSensitive: true makes equals exact',
    stubs: hitOrMiss({ equals: { path: '/Case' }, caseSensitive: true }),
    request: GET('/case'),
    expect: MISS,
    next: [{ request: GET('/Case'), expect: HIT }],
  },
  {
    name: 'deepEquals on query refuses extra keys',
    stubs: hitOrMiss({ deepEquals: { query: { a: '1' } } }),
    request: GET('/d', { query: { a: '1', b: '2' } }),
    expect: MISS,
    next: [{ request: GET('/d', { query: { a: '1' } }), expect: HIT }],
  },
  {
    name: 'deepEquals on a repeated query key compares the value list',
    stubs: hitOrMiss({ deepEquals: { query: { tag: ['red', 'blue'] } } }),
    request: GET('/tags', { query: { tag: ['red', 'blue'] } }),
    expect: HIT,
    next: [{ request: GET('/tags', { query: { tag: 'red' } }), expect: MISS }],
  },
  {
    name: 'contains on body',
    stubs: hitOrMiss({ contains: { body: 'needle' } }),
    request: { method: 'PUT', path: '/b', body: 'hay needle hay' },
    expect: HIT,
  },
  {
    name: 'startsWith and endsWith on path',
    stubs: hitOrMiss({ startsWith: { path: '/api/' } }, { endsWith: { path: '.json' } }),
    request: GET('/api/v1/items.json'),
    expect: HIT,
    next: [{ request: GET('/api/v1/items.xml'), expect: MISS }],
  },
  {
    name: 'matches a regular expression on path',
    stubs: hitOrMiss({ matches: { path: '^/users/\\d+$' } }),
    request: GET('/users/42'),
    expect: HIT,
    next: [{ request: GET('/users/x42'), expect: MISS }],
  },
  {
    name: 'exists on query and headers (true and false)',
    stubs: hitOrMiss({ exists: { query: { q: true }, headers: { 'X-Absent': false } } }),
    request: GET('/search', { query: { q: 'svc' } }),
    expect: HIT,
    next: [{ request: GET('/search', { query: { q: 'svc' }, headers: { 'X-Absent': 'here' } }), expect: MISS }],
  },
  {
    name: 'not inverts a predicate',
    stubs: hitOrMiss({ not: { equals: { method: 'DELETE' } } }),
    request: GET('/n'),
    expect: HIT,
    next: [{ request: { method: 'DELETE', path: '/n' }, expect: MISS }],
  },
  {
    name: 'or takes any of its predicates',
    stubs: hitOrMiss({ or: [{ equals: { path: '/a' } }, { equals: { path: '/b' } }] }),
    request: GET('/b'),
    expect: HIT,
    next: [{ request: GET('/c'), expect: MISS }],
  },
  {
    name: 'and needs all of its predicates',
    stubs: hitOrMiss({ and: [{ startsWith: { path: '/api' } }, { equals: { method: 'PATCH' } }] }),
    request: { method: 'PATCH', path: '/api/x', body: '{}' },
    expect: HIT,
    next: [{ request: GET('/api/x'), expect: MISS }],
  },
  {
    name: 'except strips what its pattern matches before comparing',
    stubs: hitOrMiss({ equals: { body: 'order #' }, except: '\\d+' }),
    request: { method: 'POST', path: '/o', body: 'order #12345' },
    expect: HIT,
  },
  {
    name: 'jsonpath selects inside a JSON body',
    stubs: hitOrMiss({ equals: { body: 'alice' }, jsonpath: { selector: '$.user.name' } }),
    request: { method: 'POST', path: '/j', headers: { 'Content-Type': 'application/json' }, body: '{"user":{"name":"Alice","id":7}}' },
    expect: HIT,
    next: [{ request: { method: 'POST', path: '/j', body: '{"user":{"name":"Bob"}}' }, expect: MISS }],
  },
  {
    name: 'xpath selects inside an XML body',
    stubs: hitOrMiss({ equals: { body: 'Moby Dick' }, xpath: { selector: '//book/title' } }),
    request: { method: 'POST', path: '/x', headers: { 'Content-Type': 'application/xml' }, body: '<library><book><title>Moby Dick</title></book></library>' },
    expect: HIT,
  },
  {
    name: 'equals on a JSON body compares the parsed value',
    stubs: hitOrMiss({ equals: { body: { kind: 'order', qty: 2 } } }),
    request: { method: 'POST', path: '/jb', headers: { 'Content-Type': 'application/json' }, body: '{ "qty": 2, "kind": "order" }' },
    expect: HIT,
  },
  {
    name: 'header names match whatever their case',
    stubs: hitOrMiss({ equals: { headers: { 'x-tenant': 'blue' } } }),
    request: GET('/h', { headers: { 'X-TENANT': 'Blue' } }),
    expect: HIT,
  },
  {
    name: 'a header sent twice matches on either value',
    stubs: hitOrMiss({ contains: { headers: { 'X-Tag': 'second' } } }),
    request: GET('/h2', { headers: { 'X-Tag': ['first', 'second'] } }),
    expect: HIT,
  },
  {
    name: 'the first matching stub wins, in index order',
    stubs: [
      { predicates: [{ startsWith: { path: '/first' } }], responses: [{ is: { body: 'first' } }] },
      { predicates: [{ startsWith: { path: '/f' } }], responses: [{ is: { body: 'second' } }] },
    ],
    request: GET('/first/x'),
    expect: { status: 200, body: 'first' },
    next: [{ request: GET('/fx'), expect: { status: 200, body: 'second' } }],
  },

  {
    name: 'percent-encoded query values are decoded before matching',
    stubs: hitOrMiss({ equals: { query: { q: 'a b&c', mark: '\u2713' } } }),
    request: GET('/enc', { query: { q: 'a b&c', mark: '\u2713' } }),
    expect: HIT,
  },
  {
    name: 'the path is matched as sent (percent-encoding kept)',
    stubs: hitOrMiss({ equals: { path: '/files/a%20b' } }),
    request: GET('/files/a%20b'),
    expect: HIT,
  },
  {
    name: 'a large request body arrives whole',
    stubs: hitOrMiss({ endsWith: { body: 'END' } }, { startsWith: { body: 'START' } }),
    request: { method: 'POST', path: '/big', body: `START${'x'.repeat(200_000)}END` },
    expect: HIT,
  },

  // Responses.
  {
    name: 'defaultResponse answers when no stub matches',
    stubs: [{ predicates: [{ equals: { path: '/only' } }], responses: [{ is: { body: 'only' } }] }],
    imposter: { defaultResponse: { statusCode: 404, headers: { 'X-Default': 'yes' }, body: 'no stub' } },
    request: GET('/other'),
    expect: { status: 404, headers: { 'x-default': 'yes' }, body: 'no stub' },
  },
  {
    name: 'is: status, headers and a JSON body',
    stubs: [{ responses: [{ is: { statusCode: 201, headers: { 'Content-Type': 'application/json', 'X-Custom': 'c1' }, body: { id: 7, tags: ['a', 'b'] } } }] }],
    request: { method: 'POST', path: '/items', body: '{}' },
    expect: { status: 201, headers: { 'content-type': 'application/json', 'x-custom': 'c1' }, body: { json: { id: 7, tags: ['a', 'b'] } } },
  },
  {
    name: 'is: a header with several values is sent once per value',
    stubs: [{ responses: [{ is: { headers: { 'Set-Cookie': ['a=1', 'b=2'] }, body: 'cookies' } }] }],
    request: GET('/cookies'),
    expect: { status: 200, headers: { 'set-cookie': ['a=1', 'b=2'] }, body: 'cookies' },
  },
  {
    name: 'responses cycle in order and wrap around',
    stubs: [{ responses: [{ is: { body: 'one' } }, { is: { body: 'two' } }] }],
    request: GET('/cycle'),
    expect: { status: 200, body: 'one' },
    next: [
      { request: GET('/cycle'), expect: { status: 200, body: 'two' } },
      { request: GET('/cycle'), expect: { status: 200, body: 'one' } },
    ],
  },
  {
    name: 'repeat serves a response that many times before moving on',
    stubs: [{ responses: [{ is: { body: 'A' }, repeat: 2 }, { is: { body: 'B' } }] }],
    request: GET('/repeat'),
    expect: { status: 200, body: 'A' },
    next: [
      { request: GET('/repeat'), expect: { status: 200, body: 'A' } },
      { request: GET('/repeat'), expect: { status: 200, body: 'B' } },
      { request: GET('/repeat'), expect: { status: 200, body: 'A' } },
    ],
  },
  {
    name: 'a binary body (_mode binary) is sent as its bytes',
    stubs: [{ responses: [{ is: { headers: { 'Content-Type': 'image/png' }, body: PNG_BYTES, _mode: 'binary' } }] }],
    request: GET('/logo.png'),
    expect: { status: 200, headers: { 'content-type': 'image/png' }, body: { base64: PNG_BYTES } },
  },
  {
    name: 'the default answer closes HTTP/1.1 connections (HTTP/2 has no Connection header)',
    stubs: [{ responses: [{ is: { body: 'bye' } }] }],
    request: GET('/close'),
    expect: { status: 200, headers: { connection: 'close' }, body: 'bye' },
    differs: { h2: { headers: { connection: null } } },
  },
  {
    name: '_svc.fault error with probability 1 replaces the response',
    stubs: [
      {
        responses: [{ is: { body: 'fine' }, _svc: { fault: { error: { probability: 1, status: 503, body: 'overloaded', headers: { 'Retry-After': '1' } } } } }],
      },
    ],
    request: GET('/fault'),
    expect: { status: 503, headers: { 'retry-after': '1' }, body: 'overloaded' },
  },

  {
    name: 'a large response body is sent whole',
    stubs: [{ responses: [{ is: { body: `${'y'.repeat(300_000)}!` } }] }],
    request: GET('/large'),
    expect: { status: 200, body: `${'y'.repeat(300_000)}!` },
  },
  {
    name: '204 carries no body',
    stubs: [{ responses: [{ is: { statusCode: 204, headers: { 'X-Empty': 'yes' } } }] }],
    request: { method: 'DELETE', path: '/thing' },
    expect: { status: 204, headers: { 'x-empty': 'yes' }, body: '' },
  },
  {
    name: 'HEAD is answered without a body',
    stubs: hitOrMiss({ equals: { method: 'HEAD' } }),
    request: { method: 'HEAD', path: '/head' },
    expect: { status: 200, body: '' },
  },
  {
    name: 'allowCORS answers a preflight',
    stubs: [{ responses: [{ is: { body: 'not the preflight' } }] }],
    imposter: { allowCORS: true },
    request: {
      method: 'OPTIONS',
      path: '/cors',
      headers: { Origin: 'http://app.test', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'X-Token' },
    },
    expect: {
      status: 200,
      headers: { 'access-control-allow-origin': 'http://app.test', 'access-control-allow-methods': 'PUT', 'access-control-allow-headers': 'X-Token' },
    },
  },
  {
    name: 'X-Svc-Debug answers the match report instead of the response',
    stubs: hitOrMiss({ equals: { path: '/dbg' } }),
    request: GET('/dbg', { headers: { 'X-Svc-Debug': 'true' } }),
    expect: { status: 200, headers: { 'x-svc-debug-response': 'true', 'content-type': 'application/json' } },
  },
  {
    name: 'inject keeps per-imposter state between requests',
    stubs: [
      { responses: [{ inject: 'function (config) { config.state.count = (config.state.count || 0) + 1; return { body: "call " + config.state.count }; }' }] },
    ],
    request: GET('/count'),
    expect: { status: 200, body: 'call 1' },
    next: [{ request: GET('/count'), expect: { status: 200, body: 'call 2' } }],
  },
  {
    // The deadline is generous: a sandbox worker's cold start can take seconds on a loaded machine.
    name: '_svc.script (Rhai) answers from the request and its flow state',
    stubs: [
      {
        responses: [
          {
            _svc: {
              script: {
                engine: 'rhai',
                code: 'let n = ctx.state.incr("hits"); http(201, ctx.request.method + " " + ctx.request.path + " " + n).header("X-Query", ctx.request.query["q"])',
              },
            },
          },
        ],
      },
    ],
    imposter: { _svc: { scriptEngine: { timeoutMs: 120_000 } } },
    request: { method: 'PUT', path: '/rhai', query: { q: 'one' }, body: 'x' },
    expect: { status: 201, headers: { 'x-query': 'one' }, body: 'PUT /rhai 1' },
    next: [{ request: GET('/again', { query: { q: 'two' } }), expect: { status: 201, headers: { 'x-query': 'two' }, body: 'GET /again 2' } }],
  },

  {
    // The request model every transport hands the imposter (Host left out: it names whichever port was dialled).
    name: 'the imposter sees one request model: method, path, query lists, body, header names and repeats',
    stubs: [
      {
        responses: [
          {
            inject: `function (config) {
      var r = config.request;
      var names = Object.keys(r.headers).filter(function (n) { return n.toLowerCase() !== 'host'; });
      var tag = r.headers['X-Tag'] || r.headers['x-tag'];
      return { headers: { 'Content-Type': 'application/json', 'X-Multi': ['m1', 'm2'] },
        body: JSON.stringify({ method: r.method, path: r.path, query: r.query, body: r.body, names: names, tag: tag }) };
    }`,
          },
        ],
      },
    ],
    request: { method: 'POST', path: '/echo', query: { a: ['1', '2'], b: 'x' }, headers: { 'X-Tag': ['t1', 't2'], 'X-Mixed-Case': 'v' }, body: '{"k": 1}' },
    expect: {
      status: 200,
      headers: { 'x-multi': ['m1', 'm2'] },
      body: {
        json: {
          method: 'POST',
          path: '/echo',
          query: { a: ['1', '2'], b: 'x' },
          body: '{"k": 1}',
          names: ['X-Tag', 'X-Mixed-Case', 'Connection', 'Content-Length'],
          tag: ['t1', 't2'],
        },
      },
    },
    // HTTP/2 header names are lowercase on the wire, it has no Connection header, and this client sends no content-length.
    differs: {
      h2: {
        body: {
          json: { method: 'POST', path: '/echo', query: { a: ['1', '2'], b: 'x' }, body: '{"k": 1}', names: ['x-tag', 'x-mixed-case'], tag: ['t1', 't2'] },
        },
      },
    },
  },

  {
    name: 'a fault response resets the connection: no HTTP answer',
    // docs/cli.md rule 3: an imposter using a TCP fault serves HTTP/1 only, so an HTTP/2 client dialling it gets nothing.
    differs: { 'direct+h2': { noResponse: true } },
    stubs: [{ predicates: [{ equals: { path: '/reset' } }], responses: [{ fault: 'CONNECTION_RESET_BY_PEER' }] }, { responses: [{ is: { body: 'alive' } }] }],
    request: GET('/reset'),
    expect: { noResponse: true },
    next: [{ request: GET('/after'), expect: { status: 200, body: 'alive' } }],
  },
  {
    name: '_svc.fault tcp empty closes without an answer',
    differs: { 'direct+h2': { noResponse: true } },
    stubs: [
      { predicates: [{ equals: { path: '/empty' } }], responses: [{ is: { body: 'never' }, _svc: { fault: { tcp: 'EMPTY_RESPONSE' } } }] },
      { responses: [{ is: { body: 'alive' } }] },
    ],
    request: GET('/empty'),
    expect: { noResponse: true },
    next: [{ request: GET('/after'), expect: { status: 200, body: 'alive' } }],
  },

  {
    // mountebank 2.9.1 answers the same: a leading '//a' reads as an authority, dot segments resolve, %2F stays encoded.
    name: 'odd paths and queries are parsed as mountebank parses them',
    stubs: [{ responses: [{ inject: 'function (config) { return { body: JSON.stringify({ path: config.request.path, query: config.request.query }) }; }' }] }],
    request: GET('//a//b/?flag&x=1&x=&y=%2F%3F'),
    expect: { status: 200, body: { json: { path: '//b/', query: { flag: '', x: ['1', ''], y: '/?' } } } },
    next: [
      { request: GET('/c%2Fd/e;matrix=1'), expect: { status: 200, body: { json: { path: '/c%2Fd/e;matrix=1', query: {} } } } },
      { request: GET('/a/../b'), expect: { status: 200, body: { json: { path: '/b', query: {} } } } },
    ],
  },

  // Behaviors.
  {
    name: 'wait delays the response',
    stubs: [{ responses: [{ is: { body: 'late' }, _behaviors: { wait: 60 } }] }],
    request: GET('/wait'),
    expect: { status: 200, body: 'late', minElapsedMs: 55 },
  },
  {
    name: 'copy from a query parameter into the body',
    stubs: [
      {
        responses: [
          { is: { body: 'hello ${NAME}' }, _behaviors: { copy: [{ from: { query: 'name' }, into: '${NAME}', using: { method: 'regex', selector: '.+' } }] } },
        ],
      },
    ],
    request: GET('/greet', { query: { name: 'alice' } }),
    expect: { status: 200, body: 'hello alice' },
  },
  {
    name: 'copy from the path sees the imposter path (gateway and front door prefixes gone)',
    stubs: [
      {
        responses: [
          {
            is: { headers: { 'X-Path': '${PATH}' }, body: 'user ${ID}' },
            _behaviors: {
              copy: [
                { from: 'path', into: '${ID}', using: { method: 'regex', selector: '\\d+' } },
                { from: 'path', into: '${PATH}', using: { method: 'regex', selector: '.+' } },
              ],
            },
          },
        ],
      },
    ],
    request: GET('/users/314'),
    expect: { status: 200, headers: { 'x-path': '/users/314' }, body: 'user 314' },
  },
  {
    name: 'decorate rewrites the response with the request in hand',
    stubs: [
      {
        responses: [
          {
            is: { headers: { 'X-Base': 'kept' }, body: 'decorated' },
            _behaviors: {
              decorate:
                'function (request, response) { response.body = response.body + " " + request.method + " " + request.path; response.headers["X-Decorated"] = "yes"; }',
            },
          },
        ],
      },
    ],
    request: { method: 'DELETE', path: '/deco' },
    expect: { status: 200, headers: { 'x-base': 'kept', 'x-decorated': 'yes', 'x-svc-decorate-error': null }, body: 'decorated DELETE /deco' },
  },
  {
    // As in mountebank, `response.headers` is undefined when the `is` response names none.
    name: 'a decorate that throws serves the undecorated response, marked',
    stubs: [{ responses: [{ is: { body: 'plain' }, _behaviors: { decorate: 'function (request, response) { response.headers["X-Decorated"] = "yes"; }' } }] }],
    request: GET('/deco-error'),
    expect: { status: 200, headers: { 'x-svc-decorate-error': 'true', 'x-decorated': null }, body: 'plain' },
  },
  {
    name: 'inject builds the response from the request',
    stubs: [
      {
        responses: [
          {
            inject:
              'function (config) { return { statusCode: 202, headers: { "X-Q": config.request.query.q }, body: config.request.method + " " + config.request.path }; }',
          },
        ],
      },
    ],
    request: GET('/injected', { query: { q: 'v' } }),
    expect: { status: 202, headers: { 'x-q': 'v' }, body: 'GET /injected' },
  },
];

function headerValues(response: CaseResponse, name: string): string[] {
  return response.headers.filter(([n]) => n === name.toLowerCase()).map(([, value]) => value);
}

function merged(expect: Expectation, traits: ReadonlySet<Trait>, differs: TransportCase['differs']): Expectation {
  let out = expect;
  for (const [key, override] of Object.entries(differs ?? {}) as Array<[string, Partial<Expectation>]>) {
    if (!key.split('+').every((trait) => traits.has(trait as Trait))) continue;
    out = { ...out, ...override, headers: { ...out.headers, ...override.headers } };
  }
  return out;
}

function assertBody(actual: Buffer, expected: BodyExpectation, where: string): void {
  if (typeof expected === 'string') assert.is(actual.toString('utf8'), expected, `${where}: body`);
  else if ('json' in expected) assert.equal(JSON.parse(actual.toString('utf8')), expected.json, `${where}: JSON body`);
  else assert.is(actual.toString('base64'), expected.base64, `${where}: body bytes`);
}

function assertResponse(response: CaseResponse, expect: Expectation, elapsedMs: number, where: string): void {
  assert.is(response.status, expect.status, `${where}: status (body ${response.body.toString('utf8').slice(0, 300)})`);
  for (const [name, want] of Object.entries(expect.headers ?? {})) {
    const values = headerValues(response, name);
    if (want === null) assert.equal(values, [], `${where}: header ${name} absent`);
    else if (Array.isArray(want)) assert.equal(values, want, `${where}: header ${name}`);
    else assert.is(values.join(', '), want, `${where}: header ${name}`);
  }
  if (expect.body !== undefined) assertBody(response.body, expect.body, where);
  if (expect.minElapsedMs !== undefined) assert.ok(elapsedMs >= expect.minElapsedMs, `${where}: answered after ${elapsedMs} ms`);
}

/** Registers every case on `test`, run over `over`. */
export function runTransportCases(test: Test, over: Transport): void {
  for (const c of TRANSPORT_CASES) {
    test(`${over.name}: ${c.name}`, async () => {
      const running = await over.start({ ...c.imposter, stubs: c.stubs });
      try {
        const exchanges: Exchange[] = [{ request: c.request, expect: c.expect }, ...(c.next ?? [])];
        for (const [i, exchange] of exchanges.entries()) {
          const expect = merged(exchange.expect, over.traits, c.differs);
          const where = `${over.name} / ${c.name} / exchange ${i + 1}`;
          const started = performance.now();
          const sent = running.send(exchange.request);
          if (expect.noResponse) {
            const outcome = await sent.then(
              (response) => `answered ${response.status}`,
              () => 'no response',
            );
            assert.is(outcome, 'no response', where);
            continue;
          }
          assertResponse(await sent, expect, performance.now() - started, where);
        }
      } finally {
        await running.stop();
      }
    });
  }
}

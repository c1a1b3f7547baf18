/**
 * Benchmark scenarios: one imposter (sent unchanged to svc and to mountebank) and the one request
 * wrk repeats against it. Adding a scenario is one entry in `scenarios`.
 *
 * Every stub response but scenario h's carries `Connection: keep-alive`: mountebank otherwise answers
 * `Connection: close` and closes after each response, which measures TCP handshakes (what h is for).
 */

export interface BenchRequest {
  method: string;
  /** Path and query string. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Scenario {
  id: string;
  title: string;
  /** Imposter JSON without `port`. */
  imposter: Record<string, unknown>;
  request: BenchRequest;
  /** Body the request must get back, checked on every server before measuring. */
  expectBody: string;
  /** Also measured on svc `--runtime per-core` (issue 13's rows). */
  perCore?: boolean;
  /** The imposter proxies to a local origin the bench starts (a bare node:net hello-world); `{upstream}` in its JSON is that origin's URL. */
  upstream?: boolean;
  /** mountebank cannot express it (svc-only JSON): no mountebank side. */
  svcOnly?: boolean;
  /** The same scenario as WireMock stub mappings, where WireMock can express it (no scripts). */
  wiremock?: Array<Record<string, unknown>>;
}

/** A WireMock mapping answering 200 with `body`; `headers` as for `is`. */
function mapping(request: Record<string, unknown>, body: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { request, response: { status: 200, body, ...extra } };
}

const keepAlive = { Connection: 'keep-alive' };

function is(body: string, headers: Record<string, string> = {}) {
  return { is: { statusCode: 200, headers: { ...keepAlive, ...headers }, body } };
}

const manyPathStubs = Array.from({ length: 400 }, (_, n) => ({
  predicates: [{ equals: { method: 'GET', path: `/item/${n}` } }],
  responses: [is(`item ${n}`)],
}));

const manyRegexStubs = Array.from({ length: 100 }, (_, n) => ({
  predicates: [{ matches: { path: `^/re/${n}/[a-z]+/\\d+$` } }],
  responses: [is(`regex ${n}`)],
}));

/** About 1.3 KB of XML with a namespace: the order's customer is the third element of five lines. */
const xmlOrder = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<o:order xmlns:o="urn:example:orders" id="42">',
  '  <o:customer>alice</o:customer>',
  ...Array.from({ length: 12 }, (_, i) => `  <o:item sku="sku-${i}" qty="${i + 1}"><o:name>item number ${i}</o:name><o:price>${i}.99</o:price></o:item>`),
  '</o:order>',
].join('\n');

export const scenarios: Scenario[] = [
  {
    id: 'a',
    title: 'one static is stub',
    imposter: { protocol: 'http', stubs: [{ responses: [is('hello', { 'Content-Type': 'text/plain' })] }] },
    request: { method: 'GET', path: '/' },
    expectBody: 'hello',
    perCore: true,
    wiremock: [mapping({ method: 'ANY' }, 'hello', { headers: { 'Content-Type': 'text/plain' } })],
  },
  {
    id: 'b',
    title: 'equals: last of 400 stubs',
    imposter: { protocol: 'http', stubs: manyPathStubs },
    request: { method: 'GET', path: '/item/399' },
    expectBody: 'item 399',
    perCore: true,
    // WireMock tries the most recently added mapping first: the stub svc and mountebank try last is added first (here and below).
    wiremock: Array.from({ length: 400 }, (_, i) => mapping({ method: 'GET', urlPath: `/item/${399 - i}` }, `item ${399 - i}`)),
  },
  {
    id: 'c',
    title: 'matches: last of 100 regex stubs',
    imposter: { protocol: 'http', stubs: manyRegexStubs },
    request: { method: 'GET', path: '/re/99/abc/123' },
    expectBody: 'regex 99',
    wiremock: Array.from({ length: 100 }, (_, i) => mapping({ urlPathPattern: `/re/${99 - i}/[a-z]+/\\d+` }, `regex ${99 - i}`)),
  },
  {
    id: 'd',
    title: 'jsonpath on a JSON body',
    imposter: {
      protocol: 'http',
      stubs: [
        { predicates: [{ equals: { body: 'other' }, jsonpath: { selector: '$.order.customer' } }], responses: [is('wrong')] },
        { predicates: [{ equals: { body: 'alice' }, jsonpath: { selector: '$.order.customer' } }], responses: [is('order accepted')] },
      ],
    },
    request: {
      method: 'POST',
      path: '/orders',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        order: {
          id: 42,
          customer: 'alice',
          items: [
            { sku: 'x1', qty: 2 },
            { sku: 'y9', qty: 1 },
          ],
        },
      }),
    },
    expectBody: 'order accepted',
    wiremock: [
      mapping({ method: 'ANY', bodyPatterns: [{ matchesJsonPath: { expression: '$.order.customer', equalTo: 'alice' } }] }, 'order accepted'),
      mapping({ method: 'ANY', bodyPatterns: [{ matchesJsonPath: { expression: '$.order.customer', equalTo: 'other' } }] }, 'wrong'),
    ],
  },
  {
    // Issue 19 item 6: mountebank's default, so every request is a new TCP connection (wrk reconnects).
    id: 'h',
    title: 'static stub, default Connection: close',
    imposter: { protocol: 'http', stubs: [{ responses: [{ is: { statusCode: 200, headers: { 'Content-Type': 'text/plain' }, body: 'hello' } }] }] },
    request: { method: 'GET', path: '/' },
    expectBody: 'hello',
    // Jetty keeps connections open unless the response says otherwise.
    wiremock: [mapping({ method: 'ANY' }, 'hello', { headers: { 'Content-Type': 'text/plain', Connection: 'close' } })],
  },
  {
    id: 'x',
    title: 'xpath on a 1.3 KB XML body (2 stubs)',
    imposter: {
      protocol: 'http',
      stubs: [
        { predicates: [{ equals: { body: 'bob' }, xpath: { selector: '//o:customer', ns: { o: 'urn:example:orders' } } }], responses: [is('wrong')] },
        {
          predicates: [{ equals: { body: 'alice' }, xpath: { selector: '//o:customer', ns: { o: 'urn:example:orders' } } }],
          responses: [is('order accepted')],
        },
      ],
    },
    request: { method: 'POST', path: '/orders', headers: { 'Content-Type': 'application/xml' }, body: xmlOrder },
    expectBody: 'order accepted',
    wiremock: ['alice', 'bob'].map((who) =>
      mapping(
        { method: 'ANY', bodyPatterns: [{ matchesXPath: { expression: '//o:customer/text()', equalTo: who }, xPathNamespaces: { o: 'urn:example:orders' } }] },
        who === 'alice' ? 'order accepted' : 'wrong',
      ),
    ),
  },
  {
    id: 'f',
    title: 'inject: trivial JavaScript response',
    imposter: {
      protocol: 'http',
      stubs: [
        {
          responses: [
            { inject: "function (config) { return { statusCode: 200, headers: { Connection: 'keep-alive' }, body: 'injected ' + config.request.method }; }" },
          ],
        },
      ],
    },
    request: { method: 'GET', path: '/' },
    expectBody: 'injected GET',
    perCore: true,
  },
  {
    id: 'g',
    title: 'decorate behavior on an is response',
    imposter: {
      protocol: 'http',
      stubs: [
        {
          responses: [
            {
              ...is('hello'),
              _behaviors: { decorate: 'function (config) { config.response.body = config.response.body + " " + config.request.path; }' },
            },
          ],
        },
      ],
    },
    request: { method: 'GET', path: '/decorated' },
    expectBody: 'hello /decorated',
    perCore: true,
  },
  {
    // Issue 18's row: a Rhai `_svc.script` that reads and writes ctx.state (the implicit in-memory store).
    id: 'v',
    title: '_svc.script rhai using ctx.state',
    imposter: {
      protocol: 'http',
      stubs: [{ responses: [{ _svc: { script: { code: 'ctx.state.incr("n"); http(200, "counted").header("Connection", "keep-alive")' } } }] }],
    },
    request: { method: 'GET', path: '/' },
    expectBody: 'counted',
    perCore: true,
    svcOnly: true,
  },
  {
    id: 'r',
    title: 'static is stub, recordRequests',
    imposter: { protocol: 'http', recordRequests: true, stubs: [{ responses: [is('hello', { 'Content-Type': 'text/plain' })] }] },
    request: { method: 'GET', path: '/' },
    expectBody: 'hello',
    perCore: true,
  },
  {
    id: 'k',
    title: 'copy behavior (path regex into the body)',
    imposter: {
      protocol: 'http',
      stubs: [{ responses: [{ ...is('item ${ID}'), _behaviors: { copy: [{ from: 'path', into: '${ID}', using: { method: 'regex', selector: '\\d+$' } }] } }] }],
    },
    request: { method: 'GET', path: '/item/42' },
    expectBody: 'item 42',
    perCore: true,
    wiremock: [mapping({ method: 'ANY' }, 'item {{request.pathSegments.[1]}}', { transformers: ['response-template'] })],
  },
  {
    id: 'w',
    title: 'wait behavior of 1 ms',
    imposter: { protocol: 'http', stubs: [{ responses: [{ ...is('waited'), _behaviors: { wait: 1 } }] }] },
    request: { method: 'GET', path: '/' },
    expectBody: 'waited',
    perCore: true,
    wiremock: [mapping({ method: 'ANY' }, 'waited', { fixedDelayMilliseconds: 1 })],
  },
  {
    // Issue 18's rows: mountebank ignores `_svc` and answers the plain `is` (no latency).
    id: 'l',
    title: '_svc.fault latency 1 ms, probability 0.5',
    imposter: { protocol: 'http', stubs: [{ responses: [{ ...is('maybe late'), _svc: { fault: { latency: { probability: 0.5, ms: 1 } } } }] }] },
    request: { method: 'GET', path: '/' },
    expectBody: 'maybe late',
    perCore: true,
  },
  {
    // Every request moves the scenario (in-memory store) between two states; mountebank ignores the
    // scenario fields and answers the first stub.
    id: 's',
    title: 'two-state scenario, in-memory store',
    imposter: {
      protocol: 'http',
      stubs: [
        { scenarioName: 'flip', requiredScenarioState: 'Started', newScenarioState: 'Other', responses: [is('flipped')] },
        { scenarioName: 'flip', requiredScenarioState: 'Other', newScenarioState: 'Started', responses: [is('flipped')] },
      ],
    },
    request: { method: 'GET', path: '/' },
    expectBody: 'flipped',
    perCore: true,
  },
  {
    id: 'p',
    title: 'proxyTransparent to a local origin',
    imposter: { protocol: 'http', stubs: [{ responses: [{ proxy: { to: '{upstream}', mode: 'proxyTransparent' } }] }] },
    // The client's Connection header goes along to the origin, whose answer keeps the connection open.
    request: { method: 'GET', path: '/', headers: keepAlive },
    expectBody: 'hello',
    perCore: true,
    upstream: true,
  },
];

/**
 * `inject` responses and predicates, svc vs mountebank 2.9.1 (both started with --allowInjection):
 * the same imposter JSON and requests must produce the same observable answers (status, headers,
 * body; see test/support/mountebank/pair.ts). Scripts only use what both engines offer: no `require`, no
 * timers (svc's sandbox has neither; mountebank evaluates in Node).
 *
 * Deliberate departures (docs/errors.md), asserted as such: a throwing response inject is 500 in
 * mountebank and 400 `invalid injection` in svc; a throwing inject predicate is 500 with code
 * `invalid injection` in mountebank and 400 `invalid predicate injection` in svc.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertSameAnswers, createOnBoth, pairForSuite, send, svcIsMountebank, type DiffRequest } from '../support/mountebank/pair.js';
import type { HttpOptions } from '../support/servers.js';

interface Case {
  name: string;
  imposter: object;
  requests: DiffRequest[];
}

const json = (value: unknown): HttpOptions => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
const inject = (source: string, extra: object = {}) => ({ protocol: 'http', stubs: [{ responses: [{ inject: source }] }], ...extra });

const cases: Case[] = [
  {
    name: 'config form: status, headers and a string body',
    imposter: inject(
      'function (config) { return { statusCode: 201, headers: { "X-Path": config.request.path, "Content-Type": "text/plain" }, body: "made " + config.request.method }; }',
    ),
    requests: [{ method: 'POST', path: '/things', expect: 'made POST' }],
  },
  {
    name: 'legacy form with a synchronous callback',
    imposter: inject(
      'function (request, state, logger, callback) { logger.info("legacy %s", request.path); callback({ statusCode: 202, body: request.method + " " + request.path }); }',
    ),
    requests: [{ method: 'DELETE', path: '/x', expect: 'DELETE /x' }],
  },
  {
    name: 'callback called from a promise reaction',
    imposter: inject('function (config) { Promise.resolve("later").then((text) => config.callback({ body: text })); }'),
    requests: [{ path: '/', expect: 'later' }],
  },
  {
    name: 'config.state persists across requests',
    imposter: inject('function (config) { config.state.hits = (config.state.hits || 0) + 1; return { body: "hit " + config.state.hits }; }'),
    requests: [{ expect: 'hit 1' }, { expect: 'hit 2' }, { expect: 'hit 3' }],
  },
  {
    name: 'legacy state argument persists across requests',
    imposter: inject('function (request, state) { state.n = (state.n || 0) + 1; return { body: String(state.n) }; }'),
    requests: [{ expect: '1' }, { expect: '2' }],
  },
  {
    name: 'request fields: query, header, JSON body',
    imposter: inject(`function (config) {
      const r = config.request;
      return { body: { q: r.query.q, list: r.query.tag, trace: r.headers["X-Trace"], order: JSON.parse(r.body).order, method: r.method, path: r.path } };
    }`),
    requests: [
      {
        method: 'POST',
        path: '/orders?q=1&tag=a&tag=b',
        options: { headers: { 'X-Trace': 't-1', 'content-type': 'application/json' }, body: JSON.stringify({ order: 42 }) },
      },
    ],
  },
  {
    name: 'form fields of a urlencoded body',
    imposter: inject('function (config) { return { body: JSON.stringify(config.request.form) }; }'),
    requests: [
      {
        method: 'POST',
        path: '/',
        options: { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=two' },
        expect: '{"a":"1","b":"two"}',
      },
    ],
  },
  {
    name: 'object body is pretty-printed; headers kept',
    imposter: inject('function () { return { headers: { "Content-Type": "application/json", "X-Multi": ["1", "2"] }, body: { ok: true, list: [1, 2] } }; }'),
    requests: [{}],
  },
  {
    name: 'defaultResponse fills what the injected response leaves out',
    imposter: inject('function () { return { body: "from inject" }; }', { defaultResponse: { statusCode: 418, headers: { 'X-Default': 'yes' } } }),
    requests: [{ expect: 'from inject' }],
  },
  {
    name: 'binary mode',
    imposter: inject('function () { return { body: "AAEC/w==", _mode: "binary" }; }'),
    requests: [{}],
  },
  {
    name: 'a returned non-object is an empty 200',
    imposter: inject('function () { return "just text"; }'),
    requests: [{ expect: '' }],
  },
  {
    name: 'Connection keep-alive from the script is kept',
    imposter: inject('function () { return { headers: { Connection: "keep-alive" }, body: "ka" }; }'),
    requests: [{ options: { headers: { connection: 'keep-alive' } }, expect: 'ka' }],
  },
  {
    name: 'inject predicates with the config and legacy forms',
    imposter: {
      protocol: 'http',
      stubs: [
        { predicates: [{ inject: 'function (config) { return config.request.headers["X-Role"] === "admin"; }' }], responses: [{ is: { body: 'admin' } }] },
        { predicates: [{ inject: 'function (request) { return request.path.indexOf("/pub") === 0; }' }], responses: [{ is: { body: 'public' } }] },
      ],
    },
    requests: [
      { path: '/x', options: { headers: { 'X-Role': 'admin' } }, expect: 'admin' },
      { path: '/pub/1', expect: 'public' },
      { path: '/no', expect: '' },
    ],
  },
  {
    name: 'inject predicate AND-ed with a regular predicate; state shared with the response inject',
    imposter: {
      protocol: 'http',
      stubs: [
        {
          predicates: [{ equals: { method: 'POST' } }, { inject: 'function (config) { config.state.posts = (config.state.posts || 0) + 1; return true; }' }],
          responses: [{ inject: 'function (config) { return { body: "posts " + config.state.posts }; }' }],
        },
      ],
    },
    requests: [
      { method: 'POST', expect: 'posts 1' },
      { method: 'GET', expect: '' },
      { method: 'POST', expect: 'posts 2' },
    ],
  },
  {
    name: 'mixed cycle of is and inject responses',
    imposter: { protocol: 'http', stubs: [{ responses: [{ is: { body: 'first' } }, { inject: 'function () { return { body: "second" }; }' }] }] },
    requests: [{ expect: 'first' }, { expect: 'second' }, { expect: 'first' }],
  },
];

const test = suite('differential: inject');
const ready = pairForSuite(test, ['--allowInjection']);

for (const c of cases) {
  test(c.name, () => assertSameAnswers(ready(), c.imposter, c.requests));
}

/** The first error entry of an imposter's error answer. */
function firstError(body: string): Record<string, unknown> {
  return (JSON.parse(body) as { errors: Array<Record<string, unknown>> }).errors[0]!;
}

test('a throwing response inject: mountebank 500, svc 400 (docs/errors.md), both code "invalid injection"', async () => {
  const [mb, svc] = await createOnBoth(ready(), inject('function () { throw new Error("kaput"); }'));
  const fromMb = await send(mb, 'GET', '/');
  const fromSvc = await send(svc, 'GET', '/');
  assert.is(fromMb.status, 500);
  assert.is(fromSvc.status, svcIsMountebank ? 500 : 400);
  for (const res of [fromMb, fromSvc]) {
    const entry = firstError(res.body);
    assert.is(entry.code, 'invalid injection');
    assert.is(entry.message, 'invalid response injection');
    assert.match(String(entry.data), /kaput/);
  }
});

test('a throwing inject predicate: mountebank 500 "invalid injection", svc 400 "invalid predicate injection" (docs/errors.md)', async () => {
  const [mb, svc] = await createOnBoth(ready(), {
    protocol: 'http',
    stubs: [{ predicates: [{ inject: 'function (config) { return config.missing.field; }' }], responses: [{ is: { body: 'x' } }] }],
  });
  const fromMb = await send(mb, 'GET', '/');
  const fromSvc = await send(svc, 'GET', '/');
  assert.is(fromMb.status, 500);
  assert.is(firstError(fromMb.body).code, 'invalid injection');
  assert.is(firstError(fromMb.body).message, 'invalid predicate injection');
  if (!svcIsMountebank) {
    assert.is(fromSvc.status, 400);
    assert.is(firstError(fromSvc.body).code, 'invalid predicate injection');
  }
});

test('JSON request bodies arrive as text in both', async () => {
  const [mb, svc] = await createOnBoth(ready(), inject('function (config) { return { body: typeof config.request.body + ":" + config.request.body }; }'));
  const options = json({ a: 1 });
  assert.is((await send(mb, 'POST', '/', options)).body, 'string:{"a":1}');
  assert.is((await send(svc, 'POST', '/', options)).body, 'string:{"a":1}');
});

test.run();

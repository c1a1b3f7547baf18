/**
 * Conformance: the injection cases of mountebank's functional API suite (httpInjectionTest), over
 * http and https imposters, svc against mountebank 2.9.1 side by side.
 *
 * Deliberate departures (docs/errors.md and the QuickJS sandbox), asserted as such: scripts that reach
 * Node (`process`, `require('http')` for an asynchronous origin call) fail in svc's sandbox, which
 * answers 400 `invalid injection`; mountebank runs them in Node.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { svcIsMountebank } from '../support/mountebank/pair.js';
import { admin, call, createImposters, onBoth, dynamicPairForSuite, view, type Protocol } from '../support/mountebank/side-by-side.js';

const test = suite('conformance: dynamic inject');

const ready = dynamicPairForSuite(test);

const imposterOf = (protocol: Protocol, stubs: object[]) => (ports: number[]) => [{ protocol, port: ports[0], stubs }];

for (const protocol of ['http', 'https'] as const) {
  const get = (port: number, path = '/') => call({ protocol, port, path });

  const predicates: Array<[string, string]> = [
    ['an inject predicate (request) matches', 'request => request.path === "/test"'],
    ['an inject predicate (config) matches', 'config => config.request.path === "/test"'],
  ];
  for (const [name, fn] of predicates) {
    test(`${protocol}: ${name}`, async () => {
      const { mb, svc } = await onBoth(
        ready(),
        1,
        imposterOf(protocol, [{ predicates: [{ inject: fn }], responses: [{ is: { body: 'MATCHED' } }] }]),
        async (_side, [port]) =>
          view(
            await call({
              protocol,
              port: port!,
              method: 'POST',
              path: '/test?key=value',
              body: 'BODY',
              headers: { 'X-Test': 'test header', 'Content-Type': 'text/plain' },
            }),
          ),
      );
      assert.is(mb.body, 'MATCHED');
      assert.equal(svc, mb);
    });
  }

  test(`${protocol}: an inject predicate may change state (mountebank issue 495)`, async () => {
    const fn = 'config => { config.state.requests = config.state.requests || 0; config.state.requests += 1; return config.state.requests === 2; }';
    const { mb, svc } = await onBoth(
      ready(),
      1,
      imposterOf(protocol, [{ predicates: [{ inject: fn }], responses: [{ is: { body: 'MATCHED' } }] }, { responses: [{ is: { body: 'UNMATCHED' } }] }]),
      async (_side, [port]) => [(await get(port!)).body, (await get(port!)).body],
    );
    assert.equal(mb, ['UNMATCHED', 'MATCHED']);
    assert.equal(svc, mb);
  });

  test(`${protocol}: a predicate inject that is not a function is accepted at creation`, async () => {
    const imposter = { protocol, stubs: [{ predicates: [{ inject: 'return true;' }], responses: [{ is: { body: 'MATCHED' } }] }] };
    const [mb, svc] = await Promise.all(ready().sides.map(async (side) => (await admin(side, 'POST', '/imposters', imposter)).status));
    assert.is(mb, 201);
    assert.is(svc, mb);
  });

  const responses: Array<[string, string]> = [
    ['a synchronous response inject (request)', 'request => ({ body: `${request.method} INJECTED` })'],
    ['a synchronous response inject (config)', 'config => ({ body: `${config.request.method} INJECTED` })'],
  ];
  for (const [name, fn] of responses) {
    test(`${protocol}: ${name} answers 200 with Connection: close`, async () => {
      const { mb, svc } = await onBoth(ready(), 1, imposterOf(protocol, [{ responses: [{ inject: fn }] }]), async (_side, [port]) => {
        const res = await get(port!);
        return { ...view(res), connection: res.headers.connection };
      });
      assert.is(mb.body, 'GET INJECTED');
      assert.is(mb.status, 200);
      assert.is(mb.connection, 'close');
      assert.equal(svc, mb);
    });
  }

  test(`${protocol}: a throwing response inject is accepted at creation`, async () => {
    const imposter = { protocol, stubs: [{ responses: [{ inject: "() => { throw new Error('BOOM'); }" }] }] };
    const [mb, svc] = await Promise.all(ready().sides.map(async (side) => (await admin(side, 'POST', '/imposters', imposter)).status));
    assert.is(mb, 201);
    assert.is(svc, mb);
  });

  const stateful: Array<[string, string]> = [
    [
      'response inject state persists between requests (request, state)',
      '(request, state) => { if (!state.calls) { state.calls = 0; } state.calls += 1; return { body: state.calls.toString() }; }',
    ],
    [
      'response inject state persists between requests (config)',
      'config => { if (!config.state.calls) { config.state.calls = 0; } config.state.calls += 1; return { body: config.state.calls.toString() }; }',
    ],
  ];
  for (const [name, fn] of stateful) {
    test(`${protocol}: ${name}`, async () => {
      const { mb, svc } = await onBoth(ready(), 1, imposterOf(protocol, [{ responses: [{ inject: fn }] }]), async (_side, [port]) => [
        (await get(port!)).body,
        (await get(port!)).body,
      ]);
      assert.equal(mb, ['1', '2']);
      assert.equal(svc, mb);
    });
  }

  const shared: Array<[string, string, string]> = [
    [
      'predicate and response injects share imposter state (old positional arguments)',
      '(request, logger, state) => { const numCalls = state.calls || 0; return numCalls > 1; }',
      '(request, injectState, logger, callback, imposterState) => { imposterState.calls = imposterState.calls || 0; imposterState.calls += 1; return { body: "INJECT" }; }',
    ],
    [
      'predicate and response injects share imposter state (config)',
      'config => { const numCalls = config.state.calls || 0; return numCalls > 1; }',
      'config => { config.state.calls = config.state.calls || 0; config.state.calls += 1; return { body: "INJECT" }; }',
    ],
  ];
  for (const [name, predicate, response] of shared) {
    test(`${protocol}: ${name}, the predicate inside an and`, async () => {
      const { mb, svc } = await onBoth(
        ready(),
        1,
        imposterOf(protocol, [
          { predicates: [{ and: [{ inject: predicate }, { equals: { path: '/' } }] }], responses: [{ is: { body: 'IS' } }] },
          { responses: [{ inject: response }] },
        ]),
        async (_side, [port]) => {
          const bodies: string[] = [];
          for (let i = 0; i < 3; i += 1) bodies.push((await get(port!)).body);
          return bodies;
        },
      );
      assert.equal(mb, ['INJECT', 'INJECT', 'IS']);
      assert.equal(svc, mb);
    });
  }

  // SPEC: user JavaScript runs in a sandbox without Node's globals; mountebank runs it in Node.
  const nodeOnly: Array<[string, string]> = [
    ['the global process object', "() => ({ body: process.env.USER || 'test' })"],
    [
      'require (an asynchronous origin call through http)',
      "(request, state, logger, callback) => { const http = require('http'); http.get('http://localhost:1/', () => callback({ body: 'late' })); }",
    ],
  ];
  for (const [name, fn] of nodeOnly) {
    test(`${protocol}: ${name} is not available to svc's injects (400 invalid injection; mountebank runs it)`, async () => {
      if (svcIsMountebank) return;
      const svc = ready().sides[1];
      const [port] = await createImposters(svc, 1, imposterOf(protocol, [{ responses: [{ inject: fn }] }]));
      const res = await get(port!);
      assert.is(res.status, 400);
      assert.is(res.json?.errors?.[0]?.code, 'invalid injection');
    });
  }
}

test.run();

/**
 * Create-time validation of behaviors and proxies: 400 `bad data` with mountebank's messages, and
 * the injection gate for scripted behaviors.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite } from '../../../support/in-process.js';

const test = suite('behavior and proxy validation');
const svc = inProcessForSuite(test, { allowInjection: true });
const gated = inProcessForSuite(test, { allowInjection: false });

async function messages(response: Record<string, unknown>, server = svc): Promise<string[]> {
  const res = await server.admin('POST', '/imposters', { protocol: 'http', stubs: [{ responses: [response] }] });
  assert.is(res.status, 400, JSON.stringify(res.json));
  return res.json.errors.map((e: { message: string }) => e.message);
}

const copyOk = { from: 'path', into: '${X}', using: { method: 'regex', selector: '.*' } };

test('wait: type and sign', async () => {
  assert.equal(await messages({ is: {}, _behaviors: { wait: true } }), ['wait behavior "wait" field must be a string or a number']);
  assert.equal(await messages({ is: {}, behaviors: [{ wait: -1 }] }), ['wait behavior "wait" field must be an integer greater than or equal to 0']);
});

test('wait: svc object forms', async () => {
  assert.equal(await messages({ is: {}, _behaviors: { wait: { min: 10 } } }), ['wait behavior "wait.max" field required']);
  assert.equal(await messages({ is: {}, _behaviors: { wait: { min: 10, max: 5 } } }), [
    'wait behavior "wait.max" field must be greater than or equal to "wait.min"',
  ]);
  assert.equal(await messages({ is: {}, _behaviors: { wait: { inject: 3 } } }), [
    'wait behavior "wait.inject" field must be a string, representing a JavaScript function',
  ]);
  assert.equal(await messages({ is: {}, _behaviors: { wait: {} } }), [
    'wait behavior "wait" field must be a string, a number, an object with min and max, or an object with inject',
  ]);
});

test('copy: required fields, types, single key, enum', async () => {
  assert.equal(await messages({ is: {}, behaviors: [{ copy: {} }] }), [
    'copy behavior "from" field required',
    'copy behavior "into" field required',
    'copy behavior "using" field required',
  ]);
  assert.equal(await messages({ is: {}, behaviors: [{ copy: { ...copyOk, from: { query: 'a', headers: 'b' } } }] }), [
    'copy behavior "from" field must have exactly one key',
  ]);
  assert.equal(await messages({ is: {}, behaviors: [{ copy: { ...copyOk, from: 1, into: 2 } }] }), [
    'copy behavior "from" field must be a string or an object, representing the request field to select from',
    'copy behavior "into" field must be a string, representing the token to replace in response fields',
  ]);
  assert.equal(await messages({ is: {}, _behaviors: { copy: [{ ...copyOk, using: { method: 'css' } }] } }), [
    'copy behavior "using.method" field must be one of [regex, xpath, jsonpath]',
    'copy behavior "using.selector" field required',
  ]);
  assert.equal(await messages({ is: {}, behaviors: [{ copy: { ...copyOk, using: 'regex' } }] }), ['copy behavior "using" field must be an object']);
});

test('lookup: nested key, data source and csv fields', async () => {
  assert.equal(await messages({ is: {}, behaviors: [{ lookup: { key: { from: 'path' }, fromDataSource: { db: {} }, into: '${R}' } }] }), [
    'lookup behavior "key.using" field required',
    'lookup behavior "fromDataSource" field must be one of [csv]',
  ]);
  assert.equal(
    await messages({
      is: {},
      behaviors: [{ lookup: { key: { from: 'path', using: { method: 'regex', selector: '.' } }, fromDataSource: { csv: { path: 1 } }, into: '${R}' } }],
    }),
    [
      'lookup behavior "fromDataSource.csv.path" field must be a string, representing the path to the CSV file',
      'lookup behavior "fromDataSource.csv.keyColumn" field required',
    ],
  );
});

test('shellTransform, decorate, unknown and combined behaviors', async () => {
  assert.equal(await messages({ is: {}, behaviors: [{ shellTransform: ['a'] }] }), [
    'shellTransform behavior "shellTransform" field must be a string, representing the path to a command line application',
  ]);
  assert.equal(await messages({ is: {}, behaviors: [{ decorate: 1 }] }), [
    'decorate behavior "decorate" field must be a string, representing a JavaScript function',
  ]);
  assert.equal(await messages({ is: {}, behaviors: [{ sparkle: true }] }), ['Unrecognized behavior: "sparkle"']);
  assert.equal(await messages({ is: {}, behaviors: [{ wait: 1, decorate: 'function () {}' }] }), ['Each behavior object must have only one behavior type']);
  assert.equal(await messages({ is: {}, behaviors: { wait: 1 } }), ["'behaviors' must be an array"]);
});

test('valid behaviors in both forms are accepted, extra keys on a behavior entry allowed', async () => {
  const res = await svc.admin('POST', '/imposters', {
    protocol: 'http',
    stubs: [
      {
        responses: [
          { is: {}, _behaviors: { wait: 1, copy: [copyOk], shellTransform: 'echo {}', decorate: 'function () {}', repeat: 2 } },
          { is: {}, behaviors: [{ wait: '5' }, { copy: copyOk, note: 'mine' }, { wait: { min: 1, max: 2 } }] },
        ],
      },
    ],
  });
  assert.is(res.status, 201, JSON.stringify(res.json));
});

test('proxy: to required, absolute, without a path; injectHeaders names once whatever their case', async () => {
  assert.equal(await messages({ proxy: {} }), ['Missing to']);
  assert.equal(await messages({ proxy: { to: 'nonsense' } }), ['proxy.to must be an absolute URL, got "nonsense"']);
  assert.equal(await messages({ proxy: { to: 'http://localhost:1/abc' } }), ["proxy.to must not contain a path '/abc'"]);
  assert.equal(await messages({ proxy: { to: 'http://localhost:1', injectHeaders: { 'X-A': '1', 'x-a': '2' } } }), [
    "proxy.injectHeaders names the header 'X-A' twice ('x-a'); header names are case-insensitive",
  ]);
  assert.equal(await messages({ proxy: { to: 'http://localhost:1', pathRewrite: { from: '/a' } } }), [
    'proxy.pathRewrite must be an object with string fields from and to',
  ]);
  assert.equal(await messages({ proxy: { to: 'http://localhost:1', predicateGenerators: [{ caseSensitive: true }] } }), [
    'each proxy.predicateGenerators entry needs a matches object or an inject function',
  ]);
  const ok = await svc.admin('POST', '/imposters', { protocol: 'http', stubs: [{ responses: [{ proxy: { to: 'https://localhost:1/' } }] }] });
  assert.is(ok.status, 201);
});

test('without --allowInjection: shellTransform, function waits and decorate are refused', async () => {
  assert.equal(await messages({ is: {}, _behaviors: { shellTransform: ['echo {}'] } }, gated), [
    'Shell execution is not allowed unless svc is run with the --allowInjection flag',
  ]);
  for (const behaviors of [{ wait: 'function () { return 1; }' }, { wait: { inject: 'function () { return 1; }' } }, { decorate: 'function () {}' }]) {
    const res = await gated.admin('POST', '/imposters', { protocol: 'http', stubs: [{ responses: [{ is: {}, _behaviors: behaviors }] }] });
    assert.is(res.status, 400);
    assert.is(res.json.errors[0].code, 'invalid injection');
  }
  const proxy = await gated.admin('POST', '/imposters', {
    protocol: 'http',
    stubs: [{ responses: [{ proxy: { to: 'http://localhost:1', addDecorateBehavior: 'function () {}' } }] }],
  });
  assert.is(proxy.status, 400);
  const numeric = await gated.admin('POST', '/imposters', { protocol: 'http', stubs: [{ responses: [{ is: {}, _behaviors: { wait: 5, copy: [copyOk] } }] }] });
  assert.is(numeric.status, 201, 'numeric waits and copy need no permission');
});

test.run();

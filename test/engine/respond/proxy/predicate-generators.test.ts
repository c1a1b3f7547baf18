/**
 * predicateGenerators, svc's generator against mountebank 2.9.1's own responseResolver run in this
 * process (a fake origin and a stubs repository that captures the recorded stub): the same request
 * and generators must give the same predicates. Cases where mountebank throws are svc departures,
 * checked separately.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { generatePredicates } from '../../../../engine/respond/proxy/predicate-generators.js';

const require = createRequire(import.meta.url);
const responseResolver = require('mountebank/src/models/responseResolver.js') as {
  create(stubs: unknown, proxy: unknown): { resolve(config: unknown, request: unknown, logger: unknown, state: unknown, options: unknown): Promise<unknown> };
};
const quiet = { debug() {}, info() {}, warn() {}, error() {}, scopePrefix: 'test' };

async function mountebankPredicates(request: Record<string, unknown>, predicateGenerators: unknown[]): Promise<unknown> {
  const recorded: Array<{ predicates: unknown }> = [];
  const stubs = {
    insertAtIndex: async (stub: { predicates: unknown }) => {
      recorded.push(stub);
    },
  };
  const origin = { to: async () => ({ statusCode: 200, headers: {}, body: '' }) };
  const config = { proxy: { to: 'http://origin', predicateGenerators }, stubIndex: async () => 0 };
  await responseResolver.create(stubs, origin).resolve(config, structuredClone(request), quiet, {}, {});
  return JSON.parse(JSON.stringify(recorded[0].predicates));
}

async function svcPredicates(request: Record<string, unknown>, generators: unknown[]): Promise<unknown> {
  return JSON.parse(JSON.stringify(await generatePredicates(structuredClone(request), generators, undefined)));
}

const request = {
  requestFrom: '127.0.0.1:5000',
  method: 'POST',
  path: '/orders/7',
  query: { q: 'Alpha', ts: '123', multi: ['1', '2'] },
  headers: { Host: 'localhost', 'X-Key': 'k1', 'Content-Type': 'application/json' },
  body: JSON.stringify({ id: 5, customer: { name: 'ann', tags: ['a', 'b'] }, items: [{ sku: 'x' }, { sku: 'y' }] }),
  ip: '127.0.0.1',
};
const xmlRequest = { ...request, body: '<order><id>9</id><item>a</item><item>b</item></order>' };

const cases: Array<[string, Record<string, unknown>, unknown[]]> = [
  ['deepEquals on whole fields', request, [{ matches: { method: true, path: true, query: true, body: true } }]],
  ['equals on chosen keys, nested', request, [{ matches: { query: { q: true, multi: true }, headers: { 'X-Key': true, missing: true } } }]],
  ['parameters are copied onto each predicate', request, [{ matches: { path: true, query: { q: true } }, caseSensitive: true, except: '\\d+' }]],
  [
    'jsonpath: one value, several values, none',
    request,
    [
      { matches: { body: true }, jsonpath: { selector: '$.id' } },
      { matches: { body: true }, jsonpath: { selector: '$.items[*].sku' } },
      { matches: { body: true }, jsonpath: { selector: '$.nothing' } },
    ],
  ],
  ['jsonpath on an equals matcher', request, [{ matches: { body: { customer: true } }, jsonpath: { selector: '$.customer.name' } }]],
  [
    'xpath: one value, several, none',
    xmlRequest,
    [
      { matches: { body: true }, xpath: { selector: '//id' } },
      { matches: { body: true }, xpath: { selector: '//item' } },
      { matches: { body: true }, xpath: { selector: '//none' } },
    ],
  ],
  [
    'ignore: string, list and nested forms',
    request,
    [
      { matches: { query: true }, ignore: { query: 'ts' } },
      { matches: { query: true }, ignore: { query: ['ts', 'multi', 'absent'] } },
    ],
  ],
  ['several generators in order', request, [{ matches: { method: true } }, { matches: { path: true } }]],
  ['predicateOperator other than exists takes the whole request', request, [{ matches: { path: true }, predicateOperator: 'contains' }]],
];

for (const [name, req, generators] of cases) {
  test(`predicateGenerators like mountebank: ${name}`, async () => {
    assert.equal(await svcPredicates(req, generators), await mountebankPredicates(req, generators));
  });
}

test('departure: ignore naming another field no longer throws (mountebank fails the request)', async () => {
  const generators = [{ matches: { path: true, query: true }, ignore: { query: 'ts' } }];
  let mountebankFailed = false;
  try {
    await mountebankPredicates(request, generators);
  } catch {
    mountebankFailed = true;
  }
  assert.ok(mountebankFailed);
  assert.equal(await svcPredicates(request, generators), [{ deepEquals: { path: '/orders/7' } }, { deepEquals: { query: { q: 'Alpha', multi: ['1', '2'] } } }]);
});

test('departure: predicateOperator exists gives every request leaf as an exists check', async () => {
  const small = { method: 'GET', path: '/x', query: { a: '1' } };
  assert.equal(await svcPredicates(small, [{ matches: { path: true }, predicateOperator: 'exists' }]), [
    { exists: { method: true, path: true, query: { a: true } } },
  ]);
});

test.run();

/**
 * copy and lookup, svc's compiled behaviors against mountebank 2.9.1's behaviors.execute run in
 * this process: the same request, response and behavior list must give the same response object.
 * Where they differ on purpose (substituted text never re-scanned, docs/behaviors.md) the case says so.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileBehaviors, runBehaviors, type BehaviorContext } from '../../../../engine/respond/behaviors/index.js';
import type { MockRequest } from '../../../../engine/model/index.js';

const require = createRequire(import.meta.url);
const mountebank = require('mountebank/src/models/behaviors.js') as {
  execute(request: unknown, response: unknown, behaviors: unknown[], logger: unknown): Promise<unknown>;
};
const quiet = { debug() {}, info() {}, warn() {}, error() {}, scopePrefix: 'test' };
const dir = mkdtempSync(join(tmpdir(), 'svc-copy-lookup-'));
const csv = join(dir, 'rows.csv');
writeFileSync(csv, 'id,note,name\n1,"has, comma",Ann\n2,${ROW}[name],Bob\nundefined,none,Nobody\n3,bad "quote",Cy\n4,after,Dee\n');

const request = {
  requestFrom: '127.0.0.1:1',
  method: 'POST',
  path: '/users/1/orders/24',
  query: { name: 'zed', list: ['first', 'second'] },
  headers: { 'X-Tenant': 'acme', Accept: 'application/json' },
  body: JSON.stringify({ user: { id: 2, names: ['a', 'b'] } }),
  ip: '127.0.0.1',
};

async function svcResult(behaviors: unknown[], response: unknown): Promise<unknown> {
  const compiled = compileBehaviors({ behaviors })!;
  const ctx: BehaviorContext = {
    request: request as unknown as MockRequest,
    requestJson: () => request,
    port: 0,
    defaultHeaders: undefined,
    scripts: undefined,
    log: () => undefined,
  };
  return runBehaviors(compiled, structuredClone(response) as Record<string, unknown>, ctx);
}

const copy = (from: unknown, into: string, method: string, selector: string, extra: Record<string, unknown> = {}) => ({
  copy: { from, into, using: { method, selector, ...extra } },
});
const lookup = (from: unknown, selector: string, into = '${ROW}') => ({
  lookup: { key: { from, using: { method: 'regex', selector } }, fromDataSource: { csv: { path: csv, keyColumn: 'id' } }, into },
});

const response = {
  statusCode: 200,
  headers: { 'X-A': '${A}', '${A}-key': 'v' },
  body: { a: '${A}', first: '${A}[0]', second: '${A}[1]', third: '${A}[2]', far: '${A}[9]', list: ['${A}', { deep: '${A}' }] },
};

const cases: Array<[string, unknown[], unknown]> = [
  ['copy regex: whole match and groups everywhere', [copy('path', '${A}', 'regex', '/users/(\\d+)/orders/(\\d+)')], response],
  ['copy regex: no match leaves tokens', [copy('path', '${A}', 'regex', 'nomatch')], response],
  [
    'copy regex options and a case-insensitive header name',
    [copy({ headers: 'x-TENANT' }, '${A}', 'regex', 'ACME', { options: { ignoreCase: true } })],
    response,
  ],
  ['copy from a multi-valued query takes the first value', [copy({ query: 'list' }, '${A}', 'regex', '.*')], response],
  ['copy from a missing field matches against "undefined"', [copy({ query: 'absent' }, '${A}', 'regex', 'def')], response],
  ['copy jsonpath: several values by index', [copy('body', '${A}', 'jsonpath', '$.user.names[*]')], response],
  ['copy jsonpath: a number', [copy('body', '${A}', 'jsonpath', '$.user.id')], response],
  ['copy xpath', [copy('body', '${A}', 'xpath', '//id')], { body: '${A}' }],
  ['copy into a string body', [copy('path', 'ID', 'regex', '\\d+')], { body: 'ID and ID[0] and ID[1]' }],
  [
    'lookup: row by regex key, all quote forms',
    [lookup('path', '(?<=users/)\\d+')],
    { body: '${ROW}["name"] ${ROW}[\'note\'] ${ROW}[name] ${ROW}["missing"]' },
  ],
  ['lookup: no match looks up the key "undefined" (localeCompare)', [lookup('path', 'zzz')], { body: '${ROW}["name"]' }],
  ['lookup: rows after a malformed one are unreachable', [lookup('path', '4$')], { body: '${ROW}["name"]' }],
  ['lookup then copy', [lookup('path', '(?<=users/)\\d+'), copy('path', '${A}', 'regex', '\\d+$')], { body: '${ROW}["name"]/${A}' }],
];

for (const [name, behaviors, input] of cases) {
  test(`like mountebank: ${name}`, async () => {
    const expected = await mountebank.execute(structuredClone(request), structuredClone(input), behaviors, quiet);
    assert.equal(await svcResult(behaviors, input), expected);
  });
}

test('departure: text a lookup substitutes is not scanned again (mountebank replaces tokens inside it)', async () => {
  const behaviors = [lookup({ query: 'name' }, '.*')];
  const id2 = { ...request, query: { name: '2' } };
  const expected = (await mountebank.execute(structuredClone(id2), { body: '${ROW}["note"]|${ROW}["name"]' }, behaviors, quiet)) as { body: string };
  assert.is(expected.body, 'Bob|Bob', 'mountebank substitutes the inserted token');
  const compiled = compileBehaviors({ behaviors })!;
  const ctx = { request: id2 as unknown as MockRequest, requestJson: () => id2, port: 0, defaultHeaders: undefined, scripts: undefined, log: () => undefined };
  const result = await runBehaviors(compiled, { body: '${ROW}["note"]|${ROW}["name"]' }, ctx);
  assert.is(result.body, '${ROW}[name]|Bob');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();

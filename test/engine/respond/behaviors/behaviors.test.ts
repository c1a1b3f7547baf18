/**
 * Behaviors end to end (docs/behaviors.md): an imposter created over the admin API, requests over a real
 * socket, the observable response asserted.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessForSuite, call } from '../../../support/in-process.js';
import { tempDirForSuite } from '../../../support/temp-dir.js';
import { inFlight } from '../../../support/in-flight.js';

const test = suite('behaviors');
const svc = inProcessForSuite(test, { allowInjection: true });
const temp = tempDirForSuite(test, 'svc-behaviors-');

const imposter = (stubs: unknown[], extra: Record<string, unknown> = {}): Promise<number> => svc.createImposter({ stubs, ...extra });

function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  return work().then((value) => ({ value, ms: Date.now() - started }));
}

test('wait: a number delays the response by that many ms', async () => {
  const port = await imposter([{ responses: [{ is: { body: 'late' }, _behaviors: { wait: 250 } }] }]);
  const { value, ms } = await timed(() => call(port, 'GET', '/'));
  assert.is(value.body, 'late');
  assert.ok(ms >= 240, `answered after ${ms} ms`);
});

test('wait: a numeric string is parsed like mountebank (parseInt)', async () => {
  const port = await imposter([{ responses: [{ is: { body: 'x' }, behaviors: [{ wait: '200' }] }] }]);
  const { ms } = await timed(() => call(port, 'GET', '/'));
  assert.ok(ms >= 190, `answered after ${ms} ms`);
});

test('wait: {min, max} waits somewhere in the range', async () => {
  const port = await imposter([{ responses: [{ is: { body: 'x' }, _behaviors: { wait: { min: 150, max: 250 } } }] }]);
  for (let i = 0; i < 3; i += 1) {
    const { ms } = await timed(() => call(port, 'GET', '/'));
    // The upper bound only catches a wait far past max; late timers on a loaded machine fit under it.
    assert.ok(ms >= 145 && ms < 1250, `answered after ${ms} ms`);
  }
});

test('wait: a static stub on the same imposter is not delayed by a waiting one', async () => {
  const port = await imposter([
    { predicates: [{ equals: { path: '/slow' } }], responses: [{ is: { body: 'slow' }, _behaviors: { wait: 3000 } }] },
    { responses: [{ is: { body: 'fast' } }] },
  ]);
  const slow = inFlight(call(port, 'GET', '/slow'));
  const { value, ms } = await timed(() => call(port, 'GET', '/fast'));
  assert.is(value.body, 'fast');
  // A delayed static answer would take most of the 3 s wait; a loaded machine answers well inside half.
  assert.ok(ms < 1500, `static answer took ${ms} ms`);
  assert.is((await slow).body, 'slow');
});

test("wait only: the answer is the stub's static response, every time, whatever form the wait takes", async () => {
  const is = { statusCode: 201, headers: { 'X-Kind': 'static', 'Set-Cookie': ['a=1', 'b=2'] }, body: { id: 7, name: 'seven' } };
  const defaultResponse = { statusCode: 404, headers: { 'X-Default': 'yes' }, body: 'default' };
  const port = await imposter(
    [
      { predicates: [{ equals: { path: '/static' } }], responses: [{ is }] },
      { predicates: [{ equals: { path: '/number' } }], responses: [{ is, _behaviors: { wait: 1 } }] },
      { predicates: [{ equals: { path: '/range' } }], responses: [{ is, behaviors: [{ wait: { min: 1, max: 3 } }, { wait: '1' }] }] },
      { predicates: [{ equals: { path: '/function' } }], responses: [{ is, _behaviors: { wait: 'function () { return 1; }' } }] },
      { predicates: [{ equals: { path: '/binary' } }], responses: [{ is: { body: 'AAEC/w==', _mode: 'binary' }, _behaviors: { wait: 1 } }] },
    ],
    { defaultResponse },
  );
  const seen = (res: Awaited<ReturnType<typeof call>>) => {
    const { date: _date, ...headers } = res.headers;
    return JSON.stringify({ status: res.status, headers, body: res.body });
  };
  const expected = seen(await call(port, 'GET', '/static'));
  assert.match(expected, /"set-cookie":\["a=1","b=2"\]/);
  for (const path of ['/number', '/range', '/function']) {
    for (let i = 0; i < 3; i++) assert.is(seen(await call(port, 'GET', path)), expected, `${path}, answer ${i + 1}`);
  }
  const binary = await call(port, 'GET', '/binary');
  assert.equal([...binary.bodyBytes], [0, 1, 2, 255], 'a binary body is decoded as the static one is');
});

test('copy regex: ${TOKEN} is the whole match, ${TOKEN}[n] the groups, in body, headers and keys', async () => {
  const port = await imposter([
    {
      responses: [
        {
          is: { statusCode: 200, headers: { 'X-Id': 'ID' }, body: { id: 'ID', group: 'ID[1]', past: 'ID[7]', 'key-ID': ['ID[1]'] } },
          _behaviors: { copy: [{ from: 'path', into: 'ID', using: { method: 'regex', selector: '/users/(\\d+)' } }] },
        },
      ],
    },
  ]);
  const res = await call(port, 'GET', '/users/42/orders');
  assert.is(res.headers['x-id'], '/users/42');
  assert.equal(JSON.parse(res.body), { id: '/users/42', group: '42', past: '/users/42[7]', 'key-/users/42': ['42'] });
});

test('copy: from a query parameter and a header (case-insensitive), regex options', async () => {
  const port = await imposter([
    {
      responses: [
        {
          is: { body: 'q=${Q} h=${H}' },
          behaviors: [
            { copy: { from: { query: 'NAME' }, into: '${Q}', using: { method: 'regex', selector: '.+' } } },
            { copy: { from: { headers: 'x-tenant' }, into: '${H}', using: { method: 'regex', selector: 'ACME', options: { ignoreCase: true } } } },
          ],
        },
      ],
    },
  ]);
  const res = await call(port, 'GET', '/?name=alice', { headers: { 'X-Tenant': 'the-acme-co' } });
  assert.is(res.body, 'q=alice h=acme');
});

test('copy jsonpath and xpath from the body; no match leaves the token', async () => {
  const port = await imposter([
    {
      responses: [
        {
          is: { body: 'json=${J} xml=${X} none=${N}' },
          behaviors: [
            { copy: { from: 'body', into: '${J}', using: { method: 'jsonpath', selector: '$.order.id' } } },
            { copy: { from: 'body', into: '${X}', using: { method: 'xpath', selector: '//id' } } },
            { copy: { from: 'body', into: '${N}', using: { method: 'jsonpath', selector: '$.missing' } } },
          ],
        },
      ],
    },
  ]);
  const json = await call(port, 'POST', '/', { body: JSON.stringify({ order: { id: 7 } }) });
  assert.is(json.body, 'json=7 xml=${X} none=${N}');
  const xml = await call(port, 'POST', '/', { body: '<order><id>99</id></order>' });
  assert.is(xml.body, 'json=${J} xml=99 none=${N}');
});

test('copy: substituted text is not scanned again for the token', async () => {
  const port = await imposter([
    {
      responses: [{ is: { body: 'value=$V' }, behaviors: [{ copy: { from: { query: 'v' }, into: '$V', using: { method: 'regex', selector: '.*' } } }] }],
    },
  ]);
  const res = await call(port, 'GET', '/?v=%24V%24V');
  assert.is(res.body, 'value=$V$V');
});

test('lookup: a CSV row selected by a key from the request fills ${ROW}["column"] tokens', async () => {
  const csv = join(temp.path, 'people.csv');
  writeFileSync(csv, 'id,name,city\n1,Ann,"Paris, FR"\n2,Bob,Oslo\n');
  const port = await imposter([
    {
      responses: [
        {
          is: { body: { name: '${ROW}["name"]', city: "${ROW}['city']", bare: '${ROW}[name]' } },
          _behaviors: {
            lookup: [
              {
                key: { from: 'path', using: { method: 'regex', selector: '\\d+' } },
                fromDataSource: { csv: { path: csv, keyColumn: 'id' } },
                into: '${ROW}',
              },
            ],
          },
        },
      ],
    },
  ]);
  assert.equal(JSON.parse((await call(port, 'GET', '/people/1')).body), { name: 'Ann', city: 'Paris, FR', bare: 'Ann' });
  assert.equal(JSON.parse((await call(port, 'GET', '/people/2')).body), { name: 'Bob', city: 'Oslo', bare: 'Bob' });
  const missing = JSON.parse((await call(port, 'GET', '/people/3')).body);
  assert.is(missing.name, '${ROW}["name"]', 'no row: tokens stay');
});

test('lookup: a changed CSV file is read again; values are never re-scanned; custom delimiter', async () => {
  const csv = join(temp.path, 'codes.csv');
  writeFileSync(csv, 'code;label\nA;${R}[code]\n');
  const port = await imposter([
    {
      responses: [
        {
          is: { body: '${R}["label"]|${R}[code]' },
          behaviors: [
            {
              lookup: {
                key: { from: { query: 'c' }, using: { method: 'regex', selector: '.+' } },
                fromDataSource: { csv: { path: csv, keyColumn: 'code', delimiter: ';' } },
                into: '${R}',
              },
            },
          ],
        },
      ],
    },
  ]);
  assert.is((await call(port, 'GET', '/?c=A')).body, '${R}[code]|A');
  writeFileSync(csv, 'code;label\nA;first\n');
  const later = new Date(Date.now() + 5000);
  utimesSync(csv, later, later);
  assert.is((await call(port, 'GET', '/?c=A')).body, 'first|A');
});

test('lookup: a missing file or key column leaves the response unchanged', async () => {
  const csv = join(temp.path, 'other.csv');
  writeFileSync(csv, 'x,y\n1,2\n');
  const port = await imposter([
    {
      responses: [
        {
          is: { body: '${R}["y"]' },
          behaviors: [
            {
              lookup: {
                key: { from: 'path', using: { method: 'regex', selector: '\\d' } },
                fromDataSource: { csv: { path: join(temp.path, 'nope.csv'), keyColumn: 'x' } },
                into: '${R}',
              },
            },
            {
              lookup: {
                key: { from: 'path', using: { method: 'regex', selector: '\\d' } },
                fromDataSource: { csv: { path: csv, keyColumn: 'nope' } },
                into: '${R}',
              },
            },
          ],
        },
      ],
    },
  ]);
  const res = await call(port, 'GET', '/1');
  assert.is(res.status, 200);
  assert.is(res.body, '${R}["y"]');
});

test('shellTransform: each command gets MB_REQUEST/MB_RESPONSE and its stdout is the next response', async () => {
  const script = join(temp.path, 'transform.cjs');
  writeFileSync(
    script,
    [
      'const req = JSON.parse(process.env.MB_REQUEST);',
      'const res = JSON.parse(process.env.MB_RESPONSE);',
      'res.body = res.body + "|" + req.path + "|" + process.argv[2];',
      'res.statusCode = (res.statusCode || 200) + 1;',
      'process.stdout.write(JSON.stringify(res));',
    ].join('\n'),
  );
  const port = await imposter([
    {
      responses: [{ is: { statusCode: 200, body: 'start' }, _behaviors: { shellTransform: [`node ${script} one`, `node ${script} two`] } }],
    },
  ]);
  const res = await call(port, 'GET', '/shell');
  assert.is(res.status, 202);
  assert.is(res.body, 'start|/shell|one|/shell|two');
});

test('shellTransform: the JSON also arrives as two quoted arguments, apostrophes included', async () => {
  const script = join(temp.path, 'argv.cjs');
  writeFileSync(
    script,
    [
      'const req = JSON.parse(process.argv[2]);',
      'const res = JSON.parse(process.argv[3]);',
      'res.body = req.body + "|" + res.body;',
      'process.stdout.write(JSON.stringify(res));',
    ].join('\n'),
  );
  const port = await imposter([{ responses: [{ is: { body: "it's" }, _behaviors: { shellTransform: [`node ${script}`] } }] }]);
  const res = await call(port, 'POST', '/', { body: "don't" });
  assert.is(res.body, "don't|it's");
});

test('shellTransform: a failing command or invalid JSON answers 500 with the error envelope', async () => {
  const port = await imposter([
    { predicates: [{ equals: { path: '/fail' } }], responses: [{ is: { body: 'x' }, _behaviors: { shellTransform: ['exit 3'] } }] },
    { responses: [{ is: { body: 'x' }, _behaviors: { shellTransform: ['echo not-json'] } }] },
  ]);
  const failed = await call(port, 'GET', '/fail');
  assert.is(failed.status, 500);
  assert.match(JSON.parse(failed.body).errors[0].message, /Command failed/);
  const invalid = await call(port, 'GET', '/other');
  assert.is(invalid.status, 500);
  assert.match(JSON.parse(invalid.body).errors[0].message, /Shell command returned invalid JSON: 'not-json/);
});

test('order: _behaviors runs wait, lookup, copy, shellTransform in that order whatever the key order', async () => {
  const csv = join(temp.path, 'order.csv');
  writeFileSync(csv, 'k,v\nabc,from-csv\n');
  const script = join(temp.path, 'upper.cjs');
  writeFileSync(script, 'const r = JSON.parse(process.env.MB_RESPONSE); r.body = r.body.toUpperCase(); process.stdout.write(JSON.stringify(r));');
  const port = await imposter([
    {
      responses: [
        {
          is: { body: '${C}:${L}["v"]' },
          _behaviors: {
            shellTransform: `node ${script}`,
            copy: [{ from: 'path', into: '${C}', using: { method: 'regex', selector: '[a-z]+' } }],
            lookup: [
              { key: { from: 'path', using: { method: 'regex', selector: '[a-z]+' } }, fromDataSource: { csv: { path: csv, keyColumn: 'k' } }, into: '${L}' },
            ],
            wait: 50,
          },
        },
      ],
    },
  ]);
  const { value, ms } = await timed(() => call(port, 'GET', '/abc'));
  assert.is(value.body, 'ABC:FROM-CSV');
  assert.ok(ms >= 45);
});

test('order: the behaviors array runs as written; _behaviors wins when both are present', async () => {
  const script = join(temp.path, 'mark.cjs');
  writeFileSync(script, 'const r = JSON.parse(process.env.MB_RESPONSE); r.body = r.body + "+shell"; process.stdout.write(JSON.stringify(r));');
  const copy = { copy: { from: 'path', into: '${P}', using: { method: 'regex', selector: '\\w+' } } };
  const port = await imposter([
    { predicates: [{ equals: { method: 'GET' } }], responses: [{ is: { body: '${P}' }, behaviors: [{ shellTransform: `node ${script}` }, copy] }] },
    { responses: [{ is: { body: '${P}' }, behaviors: [copy], _behaviors: { shellTransform: [`node ${script}`] } }] },
  ]);
  assert.is((await call(port, 'GET', '/x')).body, 'x+shell', 'array order: shell first, then copy');
  assert.is((await call(port, 'POST', '/x')).body, '${P}+shell', '_behaviors used, behaviors array ignored');
});

test('behaviors fall back to defaultResponse fields like any is response', async () => {
  const port = await imposter(
    [{ responses: [{ is: { body: 'id=${ID}' }, _behaviors: { copy: [{ from: 'path', into: '${ID}', using: { method: 'regex', selector: '\\d+' } }] } }] }],
    { defaultResponse: { statusCode: 202, headers: { 'X-Default': 'd' } } },
  );
  const res = await call(port, 'GET', '/n/5');
  assert.is(res.status, 202);
  assert.is(res.headers['x-default'], 'd');
  assert.is(res.body, 'id=5');
});

test('repeat inside _behaviors still cycles; responses without other behaviors stay static', async () => {
  const port = await imposter([{ responses: [{ is: { body: 'a' }, _behaviors: { repeat: 2 } }, { is: { body: 'b' } }] }]);
  const bodies = [];
  for (let i = 0; i < 4; i += 1) bodies.push((await call(port, 'GET', '/')).body);
  assert.equal(bodies, ['a', 'a', 'b', 'a']);
});

test('function wait and decorate read back exactly as written', async () => {
  const stub = {
    responses: [
      { is: { body: 'a' }, _behaviors: { wait: 'function () { return 1; }' } },
      { is: { body: 'b' }, _behaviors: { wait: { inject: 'function () { return 1; }' } } },
      { is: { body: 'c' }, _behaviors: { decorate: 'function (config) { config.response.body = "d"; }' } },
    ],
  };
  const port = await imposter([stub]);
  const read = await svc.admin('GET', `/imposters/${port}`);
  assert.equal(read.json.stubs[0].responses, stub.responses);
});

test.run();

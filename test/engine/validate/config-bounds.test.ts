/**
 * Issue 10 items 1 and 5 (header part): numeric fields that size work are range-checked at create time
 * (400 naming the field), `repeat` stays a count however large, and header values that cannot be
 * written are a 400 rather than a 500 per request. After every rejection the process still answers.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';

const test = suite('reliability: config bounds');
const svc = inProcessForSuite(test);

/** POSTs an imposter and asserts a 400 envelope whose messages mention `field`; the server still answers after. */
async function rejected(config: Record<string, unknown>, field: string): Promise<void> {
  const port = await freePort();
  const res = await svc.admin('POST', '/imposters', { port, protocol: 'http', ...config });
  assert.is(res.status, 400, JSON.stringify(res.json));
  const messages = (res.json.errors as Array<{ type: string; message: string }>).map((e) => e.message).join(' | ');
  assert.ok(messages.includes(field), `${messages} should name ${field}`);
  assert.is((await svc.admin('GET', '/health')).status, 200);
  assert.is((await svc.admin('GET', '/imposters')).json.imposters.length, 0);
}

const stub = (response: Record<string, unknown>) => ({ stubs: [{ responses: [response] }] });

test('repeat 1e308 (the reproducer that killed the process) is a 400 naming repeat', async () => {
  await rejected(stub({ is: {}, repeat: 1e308 }), 'repeat');
  await rejected(stub({ is: {}, _behaviors: { repeat: 1e308 } }), '_behaviors.repeat');
});

test('a huge repeat is kept as a count: created at once, served, and cycling is unchanged', async () => {
  const started = performance.now();
  const port = await svc.createImposter({
    stubs: [
      {
        predicates: [{ equals: { path: '/c' } }],
        responses: [{ is: { body: 'x' }, repeat: 3 }, { is: { body: 'y' }, _behaviors: { repeat: '2' } }, { is: { body: 'z' } }],
      },
      { responses: [{ is: { body: 'a' }, repeat: 1e15 }, { is: { body: 'b' } }] },
    ],
  });
  // Expanding 1e15 repeats would never finish; the bound only needs to be finite, and wide for a loaded machine.
  assert.ok(performance.now() - started < 60_000);
  assert.is((await call(port, 'GET', '/')).body, 'a');
  assert.is((await call(port, 'GET', '/')).body, 'a');
  const cycle = [];
  for (let i = 0; i < 7; i += 1) cycle.push((await call(port, 'GET', '/c')).body);
  assert.equal(cycle, ['x', 'x', 'x', 'y', 'y', 'z', 'x']);
});

test('wait past the timer limit is a 400 (number, numeric string, range)', async () => {
  await rejected(stub({ is: {}, _behaviors: { wait: 1e10 } }), '"wait" field must be at most 2147483647');
  await rejected(stub({ is: {}, _behaviors: { wait: '99999999999' } }), '"wait" field must be at most');
  await rejected(stub({ is: {}, _behaviors: { wait: { min: 0, max: 1e12 } } }), '"wait.max" field must be at most');
  await rejected(stub({ is: {}, behaviors: [{ wait: 1e300 }] }), '"wait" field must be at most');
});

test('fault latency past the timer limit is a 400', async () => {
  await rejected(stub({ is: {}, _svc: { fault: { latency: { ms: 1e10 } } } }), '_svc.fault.latency.ms');
  await rejected(stub({ is: {}, _svc: { fault: { latency: { minMs: 0, maxMs: 1e300 } } } }), '_svc.fault.latency.maxMs');
});

test('flow state ttlSeconds and poolSize have upper bounds', async () => {
  await rejected({ _svc: { flowState: { ttlSeconds: 1e308 } } }, '_svc.flowState.ttlSeconds');
  await rejected({ _svc: { flowState: { backend: 'redis', url: 'redis://127.0.0.1:1', poolSize: 1e9 } } }, '_svc.flowState.poolSize');
});

test('lookup key.index must be a non-negative integer', async () => {
  const lookup = (index: unknown) =>
    stub({
      is: { body: '${row}["name"]' },
      _behaviors: {
        lookup: [
          {
            key: { from: 'path', using: { method: 'regex', selector: '.*' }, index },
            fromDataSource: { csv: { path: 'x.csv', keyColumn: 'id' } },
            into: '${row}',
          },
        ],
      },
    });
  await rejected(lookup(-1), '"key.index"');
  await rejected(lookup(1.5), '"key.index"');
  await rejected(lookup(1e300), '"key.index"');
});

test('is.statusCode out of range is a 400', async () => {
  await rejected(stub({ is: { statusCode: 1e308 } }), 'statusCode');
  await rejected({ defaultResponse: { statusCode: 99 } }, 'statusCode');
});

test('header values must be strings, numbers or arrays of them: an object is a 400, not a 500 per request', async () => {
  await rejected(stub({ is: { headers: { X: { toString: 1 } } } }), "'stubs[0].responses[0].is.headers.X'");
  await rejected(stub({ is: { headers: { X: ['a', { b: 1 }] } } }), "'stubs[0].responses[0].is.headers.X'");
  await rejected({ defaultResponse: { headers: { X: {} } } }, "'defaultResponse.headers.X'");
  const port = await svc.createImposter(stub({ is: { headers: { A: 'a', B: 2, C: ['c1', 'c2'], D: true } } }));
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 200);
  assert.is(res.headers.a, 'a');
  assert.is(res.headers.b, '2');
  assert.is(res.headers.d, 'true');
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite } from '../../../support/in-process.js';
import { freePort } from '../../../support/servers.js';

const test = suite('faults: _svc.fault validation (400 bad data at create)');
const svc = inProcessForSuite(test);

const withFault = (fault: unknown) => ({ is: { body: 'x' }, _svc: { fault } });

async function create(response: Record<string, unknown>) {
  const port = await freePort();
  return svc.admin('POST', '/imposters', { port, protocol: 'http', stubs: [{ responses: [response] }] });
}

const rejected: Array<[string, unknown, string]> = [
  ['block not an object', 'reset', "'_svc.fault' must be an object"],
  ['unknown member', { latncy: { ms: 5 } }, "'_svc.fault' has unknown member 'latncy'"],
  ['probability above 1', { latency: { probability: 1.5, ms: 5 } }, "'_svc.fault.latency.probability' must be a number from 0 to 1"],
  ['negative probability', { error: { probability: -0.1, status: 500 } }, "'_svc.fault.error.probability' must be a number from 0 to 1"],
  ['probability as a string', { latency: { probability: '0.5', ms: 5 } }, "'_svc.fault.latency.probability' must be a number from 0 to 1"],
  ['negative ms', { latency: { ms: -1 } }, "'_svc.fault.latency.ms' must be a number >= 0"],
  ['ms not a number', { latency: { ms: '10' } }, "'_svc.fault.latency.ms' must be a number >= 0"],
  ['latency without a duration', { latency: { probability: 0.5 } }, "'_svc.fault.latency.ms' must be a number >= 0"],
  ['ms and a range', { latency: { ms: 5, minMs: 1, maxMs: 9 } }, "takes either 'ms' or 'minMs' and 'maxMs', not both"],
  ['range without maxMs', { latency: { minMs: 5 } }, "'_svc.fault.latency.maxMs' must be a number >= 0"],
  ['minMs above maxMs', { latency: { minMs: 50, maxMs: 10 } }, "'_svc.fault.latency.minMs' must not exceed '_svc.fault.latency.maxMs'"],
  ['status below 100', { error: { status: 99 } }, "'_svc.fault.error.status' must be a valid HTTP status code"],
  ['status above 599', { error: { status: 600 } }, "'_svc.fault.error.status' must be a valid HTTP status code"],
  ['status not an integer', { error: { status: 500.5 } }, "'_svc.fault.error.status' must be a valid HTTP status code"],
  ['status as a string', { error: { status: '503' } }, "'_svc.fault.error.status' must be a valid HTTP status code"],
  ['body not a string', { error: { body: { a: 1 } } }, "'_svc.fault.error.body' must be a string"],
  ['headers not an object', { error: { headers: ['X-A'] } }, "'_svc.fault.error.headers' must be an object"],
  ['header value an object', { error: { headers: { 'X-A': { b: 1 } } } }, "'_svc.fault.error.headers.X-A' must be a string"],
  [
    'single-valued header in two cases',
    { error: { headers: { 'Content-Type': 'text/plain', 'content-type': 'application/json' } } },
    "repeats the header 'Content-Type' as 'content-type'",
  ],
  ['tcp a number', { tcp: 3 }, "'_svc.fault.tcp' must be a fault name or {probability, type}"],
  ['tcp object without probability', { tcp: { type: 'reset' } }, "'_svc.fault.tcp.probability' is required in the object form"],
  ['tcp object without type', { tcp: { probability: 0.5 } }, "'_svc.fault.tcp.type' must be a string naming a TCP fault"],
  ['tcp probability out of range', { tcp: { probability: 2, type: 'reset' } }, "'_svc.fault.tcp.probability' must be a number from 0 to 1"],
];

for (const [label, fault, message] of rejected) {
  test(`${label}: 400 bad data`, async () => {
    const res = await create(withFault(fault));
    assert.is(res.status, 400, JSON.stringify(res.json));
    const error = res.json.errors[0];
    assert.is(error.code, 'bad data');
    assert.ok(String(error.message).includes(message), error.message);
  });
}

test('every problem in a block is reported', async () => {
  const res = await create(withFault({ latency: { ms: -1 }, error: { status: 1 }, tcp: 7 }));
  assert.is(res.status, 400);
  assert.is(res.json.errors.length, 3);
});

test('multi-valued headers (Set-Cookie) may repeat in different cases', async () => {
  const res = await create(withFault({ error: { headers: { 'Set-Cookie': 'a=1', 'set-cookie': 'b=2' } } }));
  assert.is(res.status, 201, JSON.stringify(res.json));
});

test('unknown TCP fault names are accepted at create in both forms (500 at request time, like `fault`)', async () => {
  assert.is((await create(withFault({ tcp: 'NOT_A_FAULT' }))).status, 201);
  assert.is((await create(withFault({ tcp: { probability: 0.5, type: 'NOT_A_FAULT' } }))).status, 201);
});

test('stubs added or replaced later are validated too', async () => {
  const port = await freePort();
  assert.is((await svc.admin('POST', '/imposters', { port, protocol: 'http' })).status, 201);
  const added = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { responses: [withFault({ latency: { ms: -5 } })] } });
  assert.is(added.status, 400);
  const replaced = await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [{ responses: [withFault({ error: { status: 42 } })] }] });
  assert.is(replaced.status, 400);
  const stubs = await svc.admin('GET', `/imposters/${port}/stubs`);
  assert.equal(stubs.json.stubs, [], 'nothing was applied');
});

test('a valid block reads back exactly as written (tcp string and object forms)', async () => {
  const blocks = [
    { latency: { probability: 0.25, minMs: 10, maxMs: 20 }, tcp: 'reset' },
    { latency: { ms: 0 }, error: { probability: 0.5, status: 503, body: 'x', headers: { 'Retry-After': '1' } }, tcp: { probability: 0.1, type: 'garbage' } },
  ];
  const port = await freePort();
  const res = await svc.admin('POST', '/imposters', {
    port,
    protocol: 'http',
    stubs: blocks.map((fault) => ({ responses: [withFault(fault)] })),
  });
  assert.is(res.status, 201, JSON.stringify(res.json));
  const read = await svc.admin('GET', `/imposters/${port}`);
  assert.equal(
    read.json.stubs.map((s: any) => s.responses[0]._svc.fault),
    blocks,
  );
});

test.run();

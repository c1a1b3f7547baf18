/**
 * Issue 10 item 6: PUT /imposters validates the whole set, including what can be known about binding,
 * before the first change (400, running set unchanged); a failure that still happens while applying
 * leaves the running set as it was or as the report says, never silently empty.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:net';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';

const test = suite('reliability: bulk replace keeps the running set');
const svc = inProcessForSuite(test);
let ports: number[];

test.before.each(async () => {
  ports = [];
  for (const body of ['one', 'two']) ports.push(await svc.createImposter({ stubs: [{ responses: [{ is: { body } }] }] }));
});

async function assertRunningSetUnchanged(): Promise<void> {
  const list = (await svc.admin('GET', '/imposters')).json.imposters.map((i: { port: number }) => i.port);
  assert.equal(
    list,
    [...ports].sort((a, b) => a - b),
  );
  assert.is((await call(ports[0], 'GET', '/')).body, 'one');
  assert.is((await call(ports[1], 'GET', '/')).body, 'two');
}

const keep = (port: number, body: string) => ({ port, protocol: 'http', stubs: [{ responses: [{ is: { body } }] }] });

test('the reproducer: a header value that cannot be written is a 400 and deletes nothing', async () => {
  const res = await svc.admin('PUT', '/imposters', {
    imposters: [{ port: await freePort(), protocol: 'http', stubs: [{ responses: [{ is: { headers: { X: { toString: 1 } } } }] }] }],
  });
  assert.is(res.status, 400, JSON.stringify(res.json));
  await assertRunningSetUnchanged();
});

test('a port held by another process is a 400 before any change', async () => {
  const foreign: Server = createServer();
  await new Promise<void>((resolve) => foreign.listen(0, resolve));
  const taken = (foreign.address() as { port: number }).port;
  try {
    const res = await svc.admin('PUT', '/imposters', { imposters: [keep(ports[0], 'changed'), keep(taken, 'new')] });
    assert.is(res.status, 400, JSON.stringify(res.json));
    assert.is(res.json.errors[0].type, 'port_in_use');
    assert.ok(res.json.errors[0].message.includes(String(taken)));
    await assertRunningSetUnchanged();
  } finally {
    await new Promise((resolve) => foreign.close(resolve));
  }
});

test('an https imposter whose key and cert cannot be used is a 400 before any change', async () => {
  const res = await svc.admin('PUT', '/imposters', { imposters: [{ port: await freePort(), protocol: 'https', key: 'not a key', cert: 'not a cert' }] });
  assert.is(res.status, 400, JSON.stringify(res.json));
  await assertRunningSetUnchanged();
});

test('a replacement that fails while applying restores the imposter it replaced, and the report says so', async () => {
  const closed = await freePort();
  const res = await svc.admin('PUT', '/imposters', {
    imposters: [{ ...keep(ports[0], 'changed'), _svc: { flowState: { backend: 'redis', url: `redis://127.0.0.1:${closed}` } } }, keep(ports[1], 'two')],
  });
  assert.is(res.status, 500, JSON.stringify(res.json));
  const report = res.json.errors[0];
  assert.is(report.type, 'apply_failed');
  assert.equal(
    report.failed.map((f: { port: number }) => f.port),
    [ports[0]],
  );
  assert.ok(report.failed[0].restored === true, JSON.stringify(report));
  await assertRunningSetUnchanged();
});

test('a valid PUT still reconciles (absent deleted, changed replaced)', async () => {
  const res = await svc.admin('PUT', '/imposters', { imposters: [keep(ports[0], 'changed')] });
  assert.is(res.status, 200, JSON.stringify(res.json));
  assert.equal(
    (await svc.admin('GET', '/imposters')).json.imposters.map((i: { port: number }) => i.port),
    [ports[0]],
  );
  assert.is((await call(ports[0], 'GET', '/')).body, 'changed');
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';

const test = suite('admin: stubs');
const svc = inProcessForSuite(test);
let port: number;

const stub = (id: string, path: string, body: string) => ({
  id,
  predicates: [{ equals: { path } }],
  responses: [{ is: { body } }],
});

test.before.each(async () => {
  port = await freePort();
  await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs: [stub('a', '/a', 'A'), stub('b', '/b', 'B')] });
});

test('GET stubs carries _links; GET by index and by id', async () => {
  const list = await svc.admin('GET', `/imposters/${port}/stubs`);
  assert.is(list.json.stubs.length, 2);
  assert.is(list.json.stubs[1]._links.self.href, `http://127.0.0.1:${svc.adminPort}/imposters/${port}/stubs/1`);
  const byIndex = await svc.admin('GET', `/imposters/${port}/stubs/1`);
  assert.is(byIndex.json.id, 'b');
  const byId = await svc.admin('GET', `/imposters/${port}/stubs/by-id/a`);
  assert.equal(byId.json, stub('a', '/a', 'A'));
  assert.is((await svc.admin('GET', `/imposters/${port}/stubs/by-id/zzz`)).status, 404);
});

test('POST stub with index inserts; out-of-range index is 400; missing stub is 400', async () => {
  const res = await svc.admin('POST', `/imposters/${port}/stubs`, { index: 0, stub: stub('c', '/a', 'C') });
  assert.is(res.status, 200);
  assert.equal(
    res.json.stubs.map((s: any) => s.id),
    ['c', 'a', 'b'],
  );
  assert.is((await call(port, 'GET', '/a')).body, 'C', 'inserted stub wins by index order');
  const bad = await svc.admin('POST', `/imposters/${port}/stubs`, { index: 9, stub: stub('d', '/d', 'D') });
  assert.is(bad.status, 400);
  assert.is(bad.json.errors[0].message, "'index' must be between 0 and the length of the stubs array");
  const none = await svc.admin('POST', `/imposters/${port}/stubs`, {});
  assert.is(none.status, 400);
  const appended = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { responses: [{ is: { body: 'tail' } }] } });
  assert.is(appended.json.stubs.length, 4);
  assert.type(appended.json.stubs[3].id, 'string', 'generated id');
});

test('duplicate stub id is 400', async () => {
  const res = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: stub('a', '/x', 'X') });
  assert.is(res.status, 400);
  assert.match(res.json.errors[0].message, /duplicate/);
  const put = await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [stub('x', '/x', 'X'), stub('x', '/y', 'Y')] });
  assert.is(put.status, 400);
});

test('PUT stubs replaces all; PUT by index and by id keep position', async () => {
  let res = await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [stub('n1', '/n', 'N1'), stub('n2', '/m', 'M')] });
  assert.equal(
    res.json.stubs.map((s: any) => s.id),
    ['n1', 'n2'],
  );
  assert.is((await call(port, 'GET', '/a')).body, '', 'old stubs gone');
  res = await svc.admin('PUT', `/imposters/${port}/stubs/1`, stub('n3', '/m', 'M3'));
  assert.equal(
    res.json.stubs.map((s: any) => s.id),
    ['n1', 'n3'],
  );
  assert.is((await call(port, 'GET', '/m')).body, 'M3');
  res = await svc.admin('PUT', `/imposters/${port}/stubs/by-id/n1`, { predicates: [{ equals: { path: '/n' } }], responses: [{ is: { body: 'N9' } }] });
  assert.is(res.json.stubs[0].id, 'n1', 'by-id replacement keeps the id and position');
  assert.is((await call(port, 'GET', '/n')).body, 'N9');
  assert.is((await svc.admin('PUT', `/imposters/${port}/stubs/7`, stub('q', '/q', 'Q'))).status, 404);
  assert.is((await svc.admin('PUT', `/imposters/${port}/stubs/by-id/none`, stub('q', '/q', 'Q'))).status, 404);
});

test('DELETE by index and by id compact the list', async () => {
  let res = await svc.admin('DELETE', `/imposters/${port}/stubs/0`);
  assert.equal(
    res.json.stubs.map((s: any) => s.id),
    ['b'],
  );
  res = await svc.admin('DELETE', `/imposters/${port}/stubs/by-id/b`);
  assert.equal(res.json.stubs, []);
  assert.is((await svc.admin('DELETE', `/imposters/${port}/stubs/by-id/b`)).status, 404);
  assert.is((await svc.admin('DELETE', `/imposters/${port}/stubs/3`)).status, 404);
});

test('stub routes on an unknown imposter are 404', async () => {
  assert.is((await svc.admin('GET', '/imposters/2/stubs')).status, 404);
  assert.is((await svc.admin('POST', '/imposters/2/stubs', { stub: stub('z', '/z', 'Z') })).status, 404);
});

test('response cycling wraps around and honours repeat (response-level wins over _behaviors)', async () => {
  await svc.admin('PUT', `/imposters/${port}/stubs`, {
    stubs: [
      {
        responses: [
          { is: { body: 'one' }, repeat: 2, _behaviors: { repeat: 5 } },
          { is: { body: 'two' }, _behaviors: { repeat: 2 } },
          { is: { body: 'three' } },
        ],
      },
    ],
  });
  const bodies: string[] = [];
  for (let i = 0; i < 7; i += 1) bodies.push((await call(port, 'GET', '/')).body);
  assert.equal(bodies, ['one', 'one', 'two', 'two', 'three', 'one', 'one']);
});

test('editing one stub keeps the cycling state of the others', async () => {
  await svc.admin('PUT', `/imposters/${port}/stubs`, {
    stubs: [{ id: 'cyc', predicates: [{ equals: { path: '/c' } }], responses: [{ is: { body: '1' } }, { is: { body: '2' } }] }, stub('o', '/o', 'O')],
  });
  assert.is((await call(port, 'GET', '/c')).body, '1');
  await svc.admin('PUT', `/imposters/${port}/stubs/by-id/o`, stub('o', '/o', 'O2'));
  assert.is((await call(port, 'GET', '/c')).body, '2');
});

test.run();

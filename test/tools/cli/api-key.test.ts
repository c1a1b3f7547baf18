import { suite } from 'uvu';
import { get } from 'node:http';
import * as assert from 'uvu/assert';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { freePort, http } from '../../support/servers.js';

const test = suite('cli: API key on the admin plane (docs/cli.md)');
const KEY = 'the-token';
const svc = inProcessForSuite(test, { apiKey: KEY, keepImposters: true });
let port: number;

test.before(async () => {
  port = await freePort();
  const created = await svc.admin(
    'POST',
    '/imposters',
    { port, protocol: 'http', recordRequests: true, stubs: [{ id: 's1', responses: [{ is: { body: 'open' } }] }] },
    { Authorization: KEY },
  );
  assert.is(created.status, 201);
});

/** One route of every admin family, plus routes that do not exist (yet), such as `/events`. */
const routes = (p: number): Array<[string, string, unknown?]> => [
  ['GET', '/'],
  ['GET', '/health'],
  ['GET', '/config'],
  ['GET', '/logs'],
  ['GET', '/metrics'],
  ['GET', '/imposters'],
  ['POST', '/imposters', { protocol: 'http' }],
  ['PUT', '/imposters', { imposters: [] }],
  ['DELETE', '/imposters'],
  ['GET', `/imposters/${p}`],
  ['DELETE', `/imposters/${p}`],
  ['POST', `/imposters/${p}/enable`],
  ['POST', `/imposters/${p}/disable`],
  ['GET', `/imposters/${p}/stubs`],
  ['PUT', `/imposters/${p}/stubs`, { stubs: [] }],
  ['POST', `/imposters/${p}/stubs`, { stub: {} }],
  ['GET', `/imposters/${p}/stubs/0`],
  ['PUT', `/imposters/${p}/stubs/0`, {}],
  ['DELETE', `/imposters/${p}/stubs/0`],
  ['GET', `/imposters/${p}/stubs/by-id/s1`],
  ['GET', `/imposters/${p}/savedRequests`],
  ['DELETE', `/imposters/${p}/savedRequests`],
  ['GET', `/imposters/${p}/requests`],
  ['DELETE', `/imposters/${p}/savedProxyResponses`],
  ['POST', `/imposters/${p}/verify`, { predicates: [] }],
  ['POST', '/admin/reload'],
  ['GET', '/events'],
  ['GET', '/no/such/route'],
];

test('every admin route family answers 401 without the token or with a wrong one', async () => {
  for (const [method, path, body] of routes(port)) {
    for (const headers of [{}, { Authorization: 'wrong' }, { Authorization: `Bearer ${KEY}` }] as Array<Record<string, string>>) {
      const res = await svc.admin(method, path, body, headers);
      assert.is(res.status, 401, `${method} ${path} with ${JSON.stringify(headers)}`);
      assert.is(res.json.errors[0].type, 'unauthorized');
    }
  }
  assert.is((await svc.admin('GET', `/imposters/${port}`, undefined, { Authorization: KEY })).status, 200, 'nothing was changed');
});

/** Status of a GET without waiting for the body (`/events` is an endless stream). */
function statusOf(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port: svc.adminPort, path, headers, agent: false }, (res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', reject);
  });
}

test('with the token every read-only route answers normally, the event stream included', async () => {
  assert.is(await statusOf('/events', { Authorization: KEY }), 200);
  for (const [method, path] of routes(port).filter(([method, path]) => method === 'GET' && path !== '/events')) {
    const res = await svc.admin(method, path, undefined, { Authorization: KEY });
    assert.is.not(res.status, 401, `${method} ${path}`);
  }
  assert.is((await svc.admin('POST', '/admin/reload', undefined, { Authorization: KEY })).status, 200);
});

test('imposter ports and the gateway are never gated', async () => {
  assert.is((await call(port, 'GET', '/direct')).body, 'open');
  assert.is((await http('GET', `http://127.0.0.1:${svc.adminPort}/__svc/${port}/gateway`)).body, 'open');
  const recorded = await svc.admin('GET', `/imposters/${port}/savedRequests`, undefined, { Authorization: KEY });
  assert.equal(
    recorded.json.map((r: any) => r.path),
    ['/direct', '/gateway'],
  );
});

test.run();

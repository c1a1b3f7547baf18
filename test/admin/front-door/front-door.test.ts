/**
 * docs/front-door.md end to end: `svc --front-door` with a config-file route table, dispatching in-process to
 * imposters (recording, faults), strip_prefix and set_host, gateway fallback, the two 404s, keep-alive
 * and pipelining, reload swapping the table as a unit.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { connect as connectH2 } from 'node:http2';
import { join } from 'node:path';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { freePort, http, startSvc, type HttpResponse, type RunningServer } from '../../support/servers.js';

const test = suite('front door');
const tmp = tempDirForSuite(test, 'svc-front-door-');

let svc: RunningServer;
let admin = '';
let door = '';
let doorPort = 0;
let alpha = 0;
let beta = 0;
let missing = 0;
let configPath = '';

function imposter(port: number, name: string): Record<string, unknown> {
  return {
    port,
    protocol: 'http',
    recordRequests: true,
    stubs: [
      { predicates: [{ equals: { path: '/boom' } }], responses: [{ is: { body: 'never' }, _svc: { fault: { tcp: 'reset' } } }] },
      // keep-alive: mountebank's default answer closes the connection, which would hide pipelining.
      { responses: [{ is: { statusCode: 200, headers: { Connection: 'keep-alive' }, body: name } }] },
    ],
  };
}

function firstRoutes(): unknown[] {
  return [
    { id: 'alpha-host', match: { host: 'alpha.test' }, target: { port: alpha } },
    { id: 'wild-beta', match: { host: '*.beta.test' }, target: { port: beta } },
    { id: 'api-strip', match: { path_prefix: '/api' }, target: { port: alpha, strip_prefix: true, set_host: 'backend.internal:9000' } },
    { id: 'tenant', priority: 5, match: { headers: [{ name: 'X-Tenant', value: 'beta' }], method: 'POST' }, target: { port: beta } },
    { id: 'nobody-home', match: { path_prefix: '/missing' }, target: { port: missing } },
    { id: 'disabled', enabled: false, match: {}, target: { port: beta } },
  ];
}

function writeConfig(routes: unknown): void {
  writeFileSync(configPath, JSON.stringify({ imposters: [imposter(alpha, 'alpha'), imposter(beta, 'beta')], routes }));
}

const onDoor = (method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<HttpResponse> =>
  http(method, `${door}${path}`, { headers, body });

async function recorded(port: number): Promise<Array<Record<string, any>>> {
  return JSON.parse((await http('GET', `${admin}/imposters/${port}`)).body).requests;
}

async function clearRecorded(port: number): Promise<void> {
  assert.is((await http('DELETE', `${admin}/imposters/${port}/savedRequests`)).status, 200);
}

test.before(async () => {
  [alpha, beta, missing, doorPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  configPath = join(tmp.path, 'config.json');
  writeConfig(firstRoutes());
  svc = await startSvc({
    args: [
      '--configfile',
      configPath,
      '--front-door',
      `127.0.0.1:${doorPort}`,
      '--metrics-port',
      String(await freePort()),
      '--pidfile',
      join(tmp.path, 'svc.pid'),
    ],
  });
  admin = `http://127.0.0.1:${svc.adminPort}`;
  door = `http://127.0.0.1:${doorPort}`;
});

test.after(async () => {
  await svc?.stop();
});

test('host routes: exact and wildcard, case-insensitive, :port ignored', async () => {
  assert.is((await onDoor('GET', '/x', { Host: 'ALPHA.test:1234' })).body, 'alpha');
  assert.is((await onDoor('GET', '/x', { Host: 'eu.beta.test' })).body, 'beta');
  const bare = await onDoor('GET', '/x', { Host: 'beta.test' });
  assert.is(bare.status, 404, 'a wildcard never matches the bare domain');
  assert.is(bare.headers['x-svc-front-door'], 'no-route');
});

test('dispatch is in-process like the imposter port: the request is recorded where the route points', async () => {
  await clearRecorded(alpha);
  assert.is((await onDoor('PUT', '/orders/7?x=1', { Host: 'alpha.test', 'X-Trace': 'abc' }, 'payload')).body, 'alpha');
  const [entry] = await recorded(alpha);
  assert.is(entry.method, 'PUT');
  assert.is(entry.path, '/orders/7');
  assert.equal(entry.query, { x: '1' });
  assert.is(entry.body, 'payload');
  assert.is(entry.headers['X-Trace'], 'abc');
  assert.is(entry.headers.Host, 'alpha.test');
});

test('strip_prefix removes the matched prefix and keeps the query; set_host is the Host the imposter sees', async () => {
  await clearRecorded(alpha);
  assert.is((await onDoor('GET', '/api/users/1?expand=all&x=2', { Host: 'front.test' })).body, 'alpha');
  assert.is((await onDoor('GET', '/api?only=query', { Host: 'front.test' })).body, 'alpha');
  const [nested, root] = await recorded(alpha);
  assert.is(nested.path, '/users/1');
  assert.equal(nested.query, { expand: 'all', x: '2' });
  assert.is(nested.headers.Host, 'backend.internal:9000');
  assert.is(root.path, '/');
  assert.equal(root.query, { only: 'query' });
  const notSegment = await onDoor('GET', '/apiary', { Host: 'front.test' });
  assert.is(notSegment.headers['x-svc-front-door'], 'no-route', 'the prefix is segment-aligned');
});

test('priority and headers/method clauses: the tenant route wins only when all its clauses hold', async () => {
  assert.is((await onDoor('POST', '/x', { Host: 'alpha.test', 'x-tenant': 'beta' }, '')).body, 'beta');
  assert.is((await onDoor('GET', '/x', { Host: 'alpha.test', 'x-tenant': 'beta' })).body, 'alpha', 'method clause');
  assert.is((await onDoor('POST', '/x', { Host: 'alpha.test', 'x-tenant': 'BETA' }, '')).body, 'alpha', 'values are case-sensitive');
});

test('no route: gateway addressing /__svc/{port}/... on the front door, else 404 x-svc-front-door: no-route', async () => {
  await clearRecorded(beta);
  const viaGateway = await onDoor('GET', `/__svc/${beta}/deep/path?q=1`, { Host: 'unknown.test' });
  assert.is(viaGateway.body, 'beta');
  const [entry] = await recorded(beta);
  assert.is(entry.path, '/deep/path');
  assert.equal(entry.query, { q: '1' });
  const none = await onDoor('GET', '/nothing', { Host: 'unknown.test' });
  assert.is(none.status, 404);
  assert.is(none.headers['x-svc-front-door'], 'no-route');
  assert.match(String(none.headers['content-type']), /application\/json/);
  const body = JSON.parse(none.body);
  assert.is(body.errors.length, 1);
  assert.is(body.errors[0].type, 'no_route');
  const gatewayToNobody = await onDoor('GET', `/__svc/${missing}/x`, { Host: 'unknown.test' });
  assert.is(gatewayToNobody.status, 404);
  assert.is(gatewayToNobody.headers['x-svc-front-door'], 'no-route');
});

test('a route whose target port has no imposter answers 404 without the no-route header', async () => {
  const answer = await onDoor('GET', '/missing/x', { Host: 'unknown.test' });
  assert.is(answer.status, 404);
  assert.is(answer.headers['x-svc-front-door'], undefined);
  const body = JSON.parse(answer.body);
  assert.is(body.errors[0].type, 'no_such_resource');
  assert.match(body.errors[0].message, new RegExp(`nobody-home: no imposter on port ${missing}`));
});

test('faults work through the front door: a tcp reset resets the front-door connection', async () => {
  const outcome = await onDoor('GET', '/boom', { Host: 'alpha.test' }).then(
    () => 'answered',
    (err: NodeJS.ErrnoException) => err.code,
  );
  assert.is(outcome, 'ECONNRESET');
});

test('keep-alive and pipelining: two requests for two imposters on one connection, answered in order', async () => {
  const answers = await new Promise<string>((resolve, reject) => {
    const socket = connect(doorPort, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if ((text.match(/\r\n0\r\n\r\n/g) ?? []).length === 2) {
        socket.end();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed after ${JSON.stringify(text)}`)));
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error(`timed out with ${JSON.stringify(text)}`));
    });
    socket.write('GET /a HTTP/1.1\r\nHost: alpha.test\r\n\r\nGET /b HTTP/1.1\r\nHost: x.beta.test\r\n\r\n');
  });
  assert.ok(answers.indexOf('alpha') < answers.indexOf('beta'), answers);
});

test('cleartext HTTP/2 with prior knowledge routes by :authority like HTTP/1 by Host', async () => {
  const client = connectH2(door);
  // A session failure also fails the stream below (its rejection reports it); unheard, it would end the run.
  client.on('error', () => undefined);
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      const stream = client.request({ ':path': '/h2', ':authority': 'eu.beta.test' });
      let body = '';
      stream.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      stream.on('end', () => resolve(body));
      stream.on('error', reject);
      stream.end();
    });
    assert.is(answer, 'beta');
  } finally {
    client.close();
  }
});

test('GET /config reports the front door address', async () => {
  const settings = JSON.parse((await http('GET', `${admin}/config`)).body);
  assert.is(settings.serveOptions.frontDoor, `127.0.0.1:${doorPort}`);
});

test('reload swaps the table as a unit; an invalid table fails the reload and the old table stays', async () => {
  writeConfig([
    { id: 'valid-one', match: { host: 'alpha.test' }, target: { port: beta } },
    { id: 'bad-one', match: { path_prefix: 'no-slash' }, target: { port: alpha } },
  ]);
  const failed = await http('POST', `${admin}/admin/reload`);
  assert.is(failed.status, 400);
  const messages = JSON.parse(failed.body).errors.map((e: { message: string }) => e.message);
  assert.ok(
    messages.some((m: string) => m.includes('route "bad-one"') && m.includes('path_prefix')),
    failed.body,
  );
  assert.is((await onDoor('GET', '/x', { Host: 'alpha.test' })).body, 'alpha', 'the old table still routes');

  writeConfig([{ id: 'swapped', match: { host: 'alpha.test' }, target: { port: beta } }]);
  const reloaded = await http('POST', `${admin}/admin/reload`);
  assert.is(reloaded.status, 200, reloaded.body);
  assert.equal(
    JSON.parse(reloaded.body).unchanged,
    [alpha, beta].sort((a, b) => a - b),
  );
  assert.is((await onDoor('GET', '/x', { Host: 'alpha.test' })).body, 'beta', 'the new table routes');
  assert.is((await onDoor('GET', '/api/x', { Host: 'front.test' })).headers['x-svc-front-door'], 'no-route', 'old routes are gone');

  writeFileSync(configPath, JSON.stringify({ imposters: [imposter(alpha, 'alpha'), imposter(beta, 'beta')] }));
  assert.is((await http('POST', `${admin}/admin/reload`)).status, 200);
  assert.is((await onDoor('GET', '/x', { Host: 'alpha.test' })).headers['x-svc-front-door'], 'no-route', 'no routes block: an empty table');
  writeConfig(firstRoutes());
  assert.is((await http('POST', `${admin}/admin/reload`)).status, 200);
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage } from 'node:http';
import { InterceptControl, interceptRoutes, Router, type AdminRequest, type AdminSettings } from '../../../admin/index.js';
import { interceptAccess, isLoopbackPeer } from '../../../admin/intercept/index.js';
import { startInterceptServer } from '../../support/intercept.js';

const test = suite('intercept access: --require-admin-auth (docs/cli.md rules 6–7, §7 403)');

test('isLoopbackPeer: 127/8, ::1 and IPv4-mapped loopback; anything else (or unknown) is off-host', () => {
  for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) assert.ok(isLoopbackPeer(address), address);
  for (const address of ['10.0.0.5', '::ffff:192.168.1.2', '2001:db8::1', '128.0.0.1', 'localhost', undefined])
    assert.not.ok(isLoopbackPeer(address), String(address));
});

test('interceptAccess: only an unauthenticated off-host intercept.write under requireAdminAuth is forbidden', () => {
  const offHost = { remoteAddress: '10.0.0.5', requireAdminAuth: true, authenticated: false };
  assert.is(interceptAccess({ ...offHost, action: 'intercept.write' }), 'forbidden');
  assert.is(interceptAccess({ ...offHost, action: 'intercept.read' }), 'allow');
  assert.is(interceptAccess({ ...offHost, action: 'intercept.write', authenticated: true }), 'allow');
  assert.is(interceptAccess({ ...offHost, action: 'intercept.write', requireAdminAuth: false }), 'allow');
  assert.is(interceptAccess({ ...offHost, action: 'intercept.write', remoteAddress: '::ffff:127.0.0.1' }), 'allow');
  assert.is(interceptAccess({ ...offHost, action: 'intercept.write', remoteAddress: undefined }), 'forbidden');
});

/** Calls a registered intercept route as a peer at `remoteAddress` (tests only have loopback sockets). */
async function callAs(remoteAddress: string, method: string, path: string, settings: AdminSettings, headers: Record<string, string> = {}) {
  const router = new Router();
  const control = new InterceptControl();
  interceptRoutes(router, control, settings, () => false);
  const found = router.find(method, path);
  if (found === undefined || found === 'method') throw new Error(`no route ${method} ${path}`);
  const request: AdminRequest = {
    method,
    path,
    query: new URLSearchParams(),
    params: found.params,
    headers,
    body: Buffer.from('{}'),
    baseUrl: 'http://svc',
    raw: { socket: { remoteAddress } } as unknown as IncomingMessage,
  };
  try {
    const reply = await found.handler(request, undefined as never);
    return reply ? reply.status : 0;
  } catch (err) {
    return (err as { status: number }).status;
  } finally {
    await control.stop();
  }
}

const base: AdminSettings = { version: 't', port: 0, localOnly: false, ipWhitelist: ['*'], noParse: false, requireAdminAuth: true };

test('the routes apply the decision: off-host POST /intercept is 403 without authentication, 201 with the API key', async () => {
  assert.is(await callAs('10.0.0.5', 'POST', '/intercept', base), 403);
  assert.is(await callAs('10.0.0.5', 'POST', '/intercept/rules', base), 403);
  assert.is(await callAs('10.0.0.5', 'DELETE', '/intercept', base), 403);
  assert.is(await callAs('10.0.0.5', 'GET', '/intercept', base), 404, 'reads are not gated: not running');
  assert.is(await callAs('10.0.0.5', 'POST', '/intercept', { ...base, apiKey: 'k' }, { authorization: 'k' }), 201);
  assert.is(await callAs('10.0.0.5', 'POST', '/intercept', { ...base, apiKey: 'k' }, { authorization: 'nope' }), 403);
  assert.is(await callAs('10.0.0.5', 'POST', '/intercept', { ...base, requireAdminAuth: false }), 201);
  assert.is(await callAs('127.0.0.1', 'POST', '/intercept', base), 201);
});

test('over a real loopback socket, --require-admin-auth still lets the local client start and stop', async () => {
  const svc = await startInterceptServer({ requireAdminAuth: true });
  try {
    const started = await svc.admin('POST', '/intercept', {});
    assert.is(started.status, 201);
    assert.is((await svc.admin('DELETE', '/intercept')).status, 204);
  } finally {
    await svc.stop();
  }
});

test.run();

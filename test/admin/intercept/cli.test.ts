import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { http, startSvc, type RunningServer } from '../../support/servers.js';
import { freePort, httpsViaProxy } from '../../support/intercept.js';
import { adminCaller, type AdminCall } from '../../support/in-process.js';

const test = suite('intercept in the svc binary (--require-admin-auth wired, proxy stopped with the server)');
let svc: RunningServer;
let interceptPort: number;
let metricsPort: number;

const admin: AdminCall = (method, path, body) => adminCaller(svc.adminPort)(method, path, body);

test.before(async () => {
  metricsPort = await freePort();
  svc = await startSvc({
    args: ['--require-admin-auth', '--metrics-port', String(metricsPort), '--nologfile', '--pidfile', `/tmp/svc-intercept-cli-${process.pid}.pid`],
  });
});
test.after(async () => {
  await svc.stop();
});

test('/config reports requireAdminAuth; a loopback client starts the proxy and is served through it', async () => {
  assert.is(JSON.parse((await admin('GET', '/config')).body).serveOptions.requireAdminAuth, true);
  interceptPort = await freePort();
  const started = await admin('POST', '/intercept', { port: interceptPort, rules: [{ match: { host: 'cli.example.com' }, serve: { body: { via: 'svc' } } }] });
  assert.is(started.status, 201, started.body);
  assert.is(JSON.parse(started.body).interceptUrl, `http://127.0.0.1:${interceptPort}`);
  const ca = (await admin('GET', '/intercept/ca.pem')).body;
  const answer = await httpsViaProxy(interceptPort, 'cli.example.com:443', '/', ca);
  assert.equal(JSON.parse(answer.body), { via: 'svc' });
});

test('the metrics plane watches the proxy listener: its accept-error series are on the page', async () => {
  const page = (await http('GET', `http://127.0.0.1:${metricsPort}/metrics`)).body;
  assert.match(page, /svc_accept_errors_total\{[^}]*listener="proxy"[^}]*class="transient"[^}]*\} 0/);
  assert.match(page, /svc_accept_error_outage\{listener="proxy"\} 0/);
});

test('stopping the server releases the intercept port', async () => {
  await svc.stop();
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(interceptPort, '127.0.0.1', () => probe.close(() => resolve()));
  });
});

test.run();

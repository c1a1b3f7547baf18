import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { createAdminServer, listenAdmin } from '../../../admin/index.js';
import { createLogger } from '../../../engine/log/index.js';
import { ImposterManager } from '../../../engine/manager/index.js';
import { startInProcess, testAdminSettings } from '../../support/in-process.js';
import { http } from '../../support/servers.js';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { connectTunnel, freePort, httpsViaProxy, opensslCertificate, interceptForSuite, tlsTunnel } from '../../support/intercept.js';

const test = suite('intercept: start, stop, options and CA sources (docs/intercept.md, §2.14)');
const dir = tempDirForSuite(test, 'svc-intercept-');
const svc = interceptForSuite(test);

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

test('POST /intercept with an empty body starts on an OS-assigned loopback port; GET reports it', async () => {
  const started = await svc.admin('POST', '/intercept', '');
  assert.is(started.status, 201, started.body);
  assert.ok(started.json.interceptPort > 0);
  assert.is(started.json.interceptUrl, `http://127.0.0.1:${started.json.interceptPort}`);
  assert.is(started.json.caKeyPem, undefined, 'the key is only returned with returnCaKey');
  assert.is(started.json.caCertPem, undefined);
  const status = await svc.admin('GET', '/intercept');
  assert.is(status.status, 200);
  assert.equal(status.json, { interceptPort: started.json.interceptPort, interceptUrl: started.json.interceptUrl });
});

test('a second start is 409 and leaves the running proxy alone', async () => {
  const first = await svc.startIntercept({});
  const second = await svc.admin('POST', '/intercept', {});
  assert.is(second.status, 409);
  assert.is(second.json.errors[0].type, 'intercept_already_running');
  assert.is((await svc.admin('GET', '/intercept')).json.interceptPort, first.interceptPort);
});

test('concurrent starts: exactly one is 201, the other 409', async () => {
  const answers = await Promise.all([svc.admin('POST', '/intercept', {}), svc.admin('POST', '/intercept', {})]);
  assert.equal(answers.map((res) => res.status).sort(), [201, 409]);
});

test('the URL is derived from the bound address: a wildcard bind is reported verbatim, IPv6 in brackets', async () => {
  const wildcard = await svc.startIntercept({ host: '0.0.0.0' });
  assert.is(wildcard.interceptUrl, `http://0.0.0.0:${wildcard.interceptPort}`);
  await svc.admin('DELETE', '/intercept');
  const v6 = await svc.admin('POST', '/intercept', { host: '::1' });
  if (v6.status === 400) assert.match(v6.json.errors[0].message, /::1/, 'only a host without IPv6 loopback may refuse');
  else assert.is(v6.json.interceptUrl, `http://[::1]:${v6.json.interceptPort}`);
});

test('DELETE /intercept is 204, releases the port, and is idempotent', async () => {
  const port = await freePort();
  const started = await svc.startIntercept({ port });
  assert.is(started.interceptPort, port);
  const deleted = await svc.admin('DELETE', '/intercept');
  assert.is(deleted.status, 204);
  assert.is(deleted.body, '');
  assert.is((await svc.admin('GET', '/intercept')).status, 404);
  assert.is((await svc.admin('DELETE', '/intercept')).status, 204);
  const rebound = await listenOn(port);
  rebound.close();
});

test('DELETE /intercept also ends open tunnels', async () => {
  const started = await svc.startIntercept({ returnCaKey: true });
  const secure = await tlsTunnel(started.interceptPort, 'open.example.com:443', started.caCertPem!);
  const plain = await connectTunnel(started.interceptPort, 'plain.example.com:80');
  const closed = Promise.all([new Promise((resolve) => secure.once('close', resolve)), new Promise((resolve) => plain.socket.once('close', resolve))]);
  assert.is((await svc.admin('DELETE', '/intercept')).status, 204);
  await closed;
  assert.ok(secure.destroyed && plain.socket.destroyed);
});

test('routes that need a running proxy answer 404 when it is not running', async () => {
  for (const [method, path] of [
    ['GET', '/intercept'],
    ['GET', '/intercept/rules'],
    ['POST', '/intercept/rules'],
    ['DELETE', '/intercept/rules'],
    ['GET', '/intercept/ca.pem'],
    ['GET', '/intercept/truststore.p12'],
    ['GET', '/intercept/truststore.jks'],
  ]) {
    const res = await svc.admin(method, path, method === 'POST' ? { serve: { body: 'x' } } : undefined);
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.json.errors[0].type, 'intercept_not_running', `${method} ${path}`);
  }
});

test('a busy port, a bad host and bad option values are 400s', async () => {
  const port = await freePort();
  const busy = await listenOn(port);
  try {
    const res = await svc.admin('POST', '/intercept', { port });
    assert.is(res.status, 400);
    assert.is(res.json.errors[0].type, 'intercept_bind_failed');
  } finally {
    busy.close();
  }
  assert.is((await svc.admin('POST', '/intercept', { host: '192.0.2.1' })).status, 400, 'an address this host does not have');
  for (const body of [{ port: -1 }, { port: 70000 }, { port: '80' }, { returnCaKey: 'yes' }, { host: 7 }, { colour: 'red' }, [1]]) {
    const res = await svc.admin('POST', '/intercept', body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.is(res.json.errors[0].type, 'invalid_intercept_options', JSON.stringify(body));
  }
  assert.is((await svc.admin('POST', '/intercept', '{not json')).status, 400);
  assert.is((await svc.admin('GET', '/intercept')).status, 404, 'nothing started');
});

test('CA pairs are both-or-neither, mutually exclusive, and returnCaKey needs no CA source', async () => {
  const ca = opensslCertificate(dir.path, 'pair-ca', { ca: true, key: 'rsa' });
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ caCertPath: ca.certPath }, /caCertPath and caKeyPath go together/],
    [{ caKeyPem: ca.keyPem }, /caCertPem and caKeyPem go together/],
    [{ caCertPath: ca.certPath, caKeyPath: ca.keyPath, caCertPem: ca.certPem, caKeyPem: ca.keyPem }, /not both/],
    [{ caCertPem: ca.certPem, caKeyPem: ca.keyPem, returnCaKey: true }, /returnCaKey is only valid/],
  ];
  for (const [body, message] of cases) {
    const res = await svc.admin('POST', '/intercept', body);
    assert.is(res.status, 400, JSON.stringify(Object.keys(body)));
    assert.match(res.json.errors[0].message, message);
  }
});

test('a CA that cannot be loaded is a 400 saying why', async () => {
  const ca = opensslCertificate(dir.path, 'load-ca', { ca: true, key: 'rsa' });
  const other = opensslCertificate(dir.path, 'other-ca', { ca: true, key: 'rsa' });
  const leaf = opensslCertificate(dir.path, 'not-a-ca', { ca: false, key: 'rsa' });
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ caCertPath: `${dir.path}/missing.crt`, caKeyPath: ca.keyPath }, /cannot read the CA/],
    [{ caCertPem: 'not a certificate', caKeyPem: ca.keyPem }, /not a PEM certificate/],
    [{ caCertPem: ca.certPem, caKeyPem: 'not a key' }, /not a PEM private key/],
    [{ caCertPem: ca.certPem, caKeyPem: other.keyPem }, /does not belong/],
    [{ caCertPem: leaf.certPem, caKeyPem: leaf.keyPem }, /not a CA/],
  ];
  for (const [body, message] of cases) {
    const res = await svc.admin('POST', '/intercept', body);
    assert.is(res.status, 400, String(message));
    assert.is(res.json.errors[0].type, 'invalid_intercept_ca');
    assert.match(res.json.errors[0].message, message);
  }
  assert.is((await svc.admin('GET', '/intercept')).status, 404);
});

test('returnCaKey returns the ephemeral CA pair once; ca.pem serves the same certificate', async () => {
  const started = await svc.startIntercept({ returnCaKey: true });
  assert.match(started.caCertPem!, /^-----BEGIN CERTIFICATE-----/);
  assert.match(started.caKeyPem!, /^-----BEGIN PRIVATE KEY-----/);
  const cert = new X509Certificate(started.caCertPem!);
  assert.ok(cert.ca, 'the ephemeral certificate is a CA');
  const pem = await svc.admin('GET', '/intercept/ca.pem');
  assert.is(pem.status, 200);
  assert.is(pem.headers['content-type'], 'application/x-pem-file');
  assert.is(pem.body, started.caCertPem);
  const status = await svc.admin('GET', '/intercept');
  assert.not.ok('caKeyPem' in status.json);
});

test('a CA given by paths (EC key) signs the leaves clients see', async () => {
  const ca = opensslCertificate(dir.path, 'path-ca', { ca: true, key: 'ec' });
  const started = await svc.startIntercept({ caCertPath: ca.certPath, caKeyPath: ca.keyPath, rules: { serve: { body: 'from rule' } } });
  const answer = await httpsViaProxy(started.interceptPort, 'shop.example.com:443', '/', ca.certPem);
  assert.is(answer.body, 'from rule');
  assert.is((await svc.admin('GET', '/intercept/ca.pem')).body, ca.certPem);
});

test('a CA given as PEM (RSA key) signs the leaves clients see, also for IP-address targets', async () => {
  const ca = opensslCertificate(dir.path, 'pem-ca', { ca: true, key: 'rsa' });
  const started = await svc.startIntercept({ caCertPem: ca.certPem, caKeyPem: ca.keyPem, rules: [{ serve: { body: 'pem' } }] });
  assert.is((await httpsViaProxy(started.interceptPort, 'api.example.org:443', '/', ca.certPem)).body, 'pem');
  assert.is((await httpsViaProxy(started.interceptPort, '10.1.2.3:8443', '/', ca.certPem)).body, 'pem');
});

test('the standard admin plane owns an intercept control; a host that opts out (intercept: false) answers 404 on /intercept*', async () => {
  const standard = await startInProcess();
  try {
    assert.is((await standard.admin('POST', '/intercept', {})).status, 201);
  } finally {
    await standard.stop();
  }
  const log = createLogger({ level: 'error', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log });
  const admin = await listenAdmin(createAdminServer({ manager, log, settings: testAdminSettings(), intercept: false }), 0, '127.0.0.1');
  try {
    for (const [method, path] of [
      ['POST', '/intercept'],
      ['GET', '/intercept'],
      ['DELETE', '/intercept'],
      ['GET', '/intercept/rules'],
      ['GET', '/intercept/ca.pem'],
    ]) {
      assert.is((await http(method, `http://127.0.0.1:${admin.port}${path}`, { body: method === 'POST' ? '{}' : undefined })).status, 404, `${method} ${path}`);
    }
  } finally {
    await manager.close();
    await admin.close();
  }
});

test.run();

/**
 * Old test certificates (1024-bit RSA, SHA-1 signatures) work on every supported Node: an https
 * imposter serves the pair it is given, verifies client certificates signed that way, and a proxy
 * presents such a client certificate; each weak certificate is named in a log warning. Node 24's
 * OpenSSL refuses all three at its default security level.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import forge from 'node-forge';
import { adminCaller, type AdminCall } from '../../support/in-process.js';
import { freePort, startSvc, type RunningServer } from '../../support/servers.js';
import { mbClient } from '../../support/mountebank/mb-client.js';

const test = suite('weak TLS material: 1024-bit RSA and SHA-1 certificates are served, with a warning');
let svc: RunningServer;
let admin: AdminCall;

/** A self-signed 1024-bit RSA certificate signed with SHA-1, as old test fixtures have. */
function weakPair(cn: string): { key: string; cert: string } {
  const { pki } = forge;
  const keys = pki.rsa.generateKeyPair(1024);
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  cert.setSubject([{ name: 'commonName', value: cn }]);
  cert.setIssuer([{ name: 'commonName', value: cn }]);
  cert.sign(keys.privateKey, forge.md.sha1.create());
  return { key: pki.privateKeyToPem(keys.privateKey), cert: pki.certificateToPem(cert) };
}

async function warnings(): Promise<string[]> {
  const logs = (await admin('GET', '/logs')).json.logs as Array<{ level: string; message: string }>;
  return logs.filter((l) => l.level === 'warn').map((l) => l.message);
}

test.before(async () => {
  svc = await startSvc({ args: ['--loglevel', 'warn'] });
  admin = adminCaller(svc.adminPort);
});
test.after(async () => {
  await svc?.stop();
});

test('an https imposter serves a 1024-bit SHA-1 certificate and warns; the default pair draws no warning', async () => {
  const server = weakPair('localhost');
  const [weak, strong] = [await freePort(), await freePort()];
  const created = await admin('POST', '/imposters', { port: weak, protocol: 'https', ...server, stubs: [{ responses: [{ is: { body: 'weak' } }] }] });
  assert.is(created.status, 201, created.body);
  assert.is((await admin('POST', '/imposters', { port: strong, protocol: 'https' })).status, 201);
  const client = mbClient('https');
  try {
    const answer = await client.get('/', weak);
    assert.is(answer.status, 200);
    assert.is(answer.body, 'weak');
  } finally {
    client.close();
  }
  const logged = await warnings();
  assert.ok(
    logged.some((m) => m.includes(`imposter ${weak}: weak TLS certificate (1024-bit rsa key, SHA-1 signature)`)),
    logged.join('\n'),
  );
  assert.not.ok(
    logged.some((m) => m.includes(`imposter ${strong}:`)),
    logged.join('\n'),
  );
});

test('a proxy presents a weak client certificate to an origin that verifies it, and warns', async () => {
  const origin = weakPair('localhost');
  const identity = weakPair('old test client');
  const [originPort, proxyPort] = [await freePort(), await freePort()];
  const originCreated = await admin('POST', '/imposters', {
    port: originPort,
    protocol: 'https',
    ...origin,
    mutualAuth: true,
    rejectUnauthorized: true,
    ca: [identity.cert],
    stubs: [{ responses: [{ is: { body: 'from origin' } }] }],
  });
  assert.is(originCreated.status, 201, originCreated.body);
  const proxyCreated = await admin('POST', '/imposters', {
    port: proxyPort,
    protocol: 'http',
    stubs: [{ responses: [{ proxy: { to: `https://localhost:${originPort}`, mode: 'proxyAlways', ...identity } }] }],
  });
  assert.is(proxyCreated.status, 201, proxyCreated.body);
  const client = mbClient('http');
  try {
    const answer = await client.get('/', proxyPort);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.is(answer.body, 'from origin');
  } finally {
    client.close();
  }
  const logged = await warnings();
  assert.ok(
    logged.some((m) => m.includes(`imposter ${proxyPort}: stub 0 response 0: proxy cert: 1024-bit rsa key, SHA-1 signature`)),
    logged.join('\n'),
  );
});

test.run();

/**
 * Conformance with mountebank 2.9.1's https certificate tests, run on mountebank and on svc: the
 * key/cert an https imposter reports and serves (given or default), mutual auth, proxying to an
 * origin that requires a client certificate, and the TLS settings mountebank reports with every
 * https imposter (mutualAuth, rejectUnauthorized, ca, ciphers).
 */
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { missingFrom, normalizeAdmin, pairForSuite, svcIsMountebank, type Side } from '../support/mountebank/pair.js';
import { makePki, type Pki } from '../support/raw-http.js';
import { failureCode, freePorts, mbApi, mbClient, type MbApi, type MbClient } from '../support/mountebank/mb-client.js';

const test = suite('conformance: https imposters');
let pki: Pki;

test.before(() => {
  pki = makePki();
});
const ready = pairForSuite(test);

interface Ctx {
  side: Side;
  api: MbApi;
  ports: [number, number, number];
  https: MbClient;
}

async function onBoth<T>(scenario: (ctx: Ctx) => Promise<T>): Promise<{ mb: any; svc: any }> {
  const p = ready();
  const run = async (side: Side) => {
    const ports = (await freePorts(3)) as [number, number, number];
    const [http, https] = [mbClient('http'), mbClient('https')];
    try {
      return normalizeAdmin(await scenario({ side, api: mbApi(side.server, http), ports, https }), side, ports);
    } finally {
      http.close();
      https.close();
    }
  };
  return { mb: await run(p.mb), svc: await run(p.svc) };
}

function assertContained(mb: unknown, svc: unknown, label: string): void {
  assert.equal(missingFrom(mb, svc), [], `${label}: mountebank's observation is not contained in ${ready().svc.name}'s`);
}

/** What a TLS handshake with the imposter shows: the server certificate and the cipher chosen. */
function handshake(port: number, options: tls.ConnectionOptions = {}): Promise<{ fingerprint: string; cipher: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: 'localhost', port, rejectUnauthorized: false, ...options }, () => {
      const result = { fingerprint: socket.getPeerCertificate().fingerprint256, cipher: socket.getCipher().name };
      socket.end();
      resolve(result);
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('handshake timed out')));
    socket.on('error', reject);
  });
}

const fingerprintOf = (pem: unknown) => (typeof pem === 'string' ? new X509Certificate(pem).fingerprint256 : `not a PEM: ${String(pem)}`);

test('key/cert given at creation: reported back and served', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, https }) => {
    const created = await api.post('/imposters', { protocol: 'https', port: ports[0], key: pki.serverKey, cert: pki.serverCert });
    const answer = await https.get('/', ports[0]);
    const served = await handshake(ports[0]);
    return {
      status: created.status,
      key: created.body.key === pki.serverKey,
      cert: created.body.cert === pki.serverCert,
      answer: answer.status,
      servesGivenCert: served.fingerprint === fingerprintOf(pki.serverCert),
    };
  });
  assert.equal(svc, mb);
  assert.equal(svc, { status: 201, key: true, cert: true, answer: 200, servesGivenCert: true });
});

test('no key/cert: a default pair is served and reported with the TLS settings, in detail and replayable forms', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, https }) => {
    const created = (await api.post('/imposters', { protocol: 'https', port: ports[0] })).body;
    const answer = await https.get('/', ports[0]);
    const served = await handshake(ports[0]);
    const replayable = (await api.get(`/imposters/${ports[0]}?replayable=true`)).body;
    const settings = (body: Record<string, unknown>) => ({
      hasKey: typeof body.key === 'string' && body.key.includes('PRIVATE KEY'),
      reportsServedCert: fingerprintOf(body.cert) === served.fingerprint,
      mutualAuth: body.mutualAuth,
      rejectUnauthorized: body.rejectUnauthorized,
      ca: body.ca,
    });
    return { answer: answer.status, created: settings(created), replayable: settings(replayable) };
  });
  assertContained(mb, svc, 'default pair');
  const expected = { hasKey: true, reportsServedCert: true, mutualAuth: false, rejectUnauthorized: false, ca: null };
  assert.equal(svc, { answer: 200, created: expected, replayable: expected });
});

test('mutualAuth: reported, and a client presenting a certificate is served', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, https }) => {
    const created = await api.post('/imposters', { protocol: 'https', port: ports[0], mutualAuth: true });
    const withCert = await https.request({ method: 'GET', path: '/', port: ports[0], key: pki.clientKey, cert: pki.clientCert });
    return { status: created.status, mutualAuth: created.body.mutualAuth, withCert: withCert.status };
  });
  assert.equal(svc, mb);
  assert.equal(svc, { status: 201, mutualAuth: true, withCert: 200 });
});

test('mutualAuth with rejectUnauthorized and ca: only clients with a certificate from that ca are served', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, https }) => {
    const created = await api.post('/imposters', { protocol: 'https', port: ports[0], mutualAuth: true, rejectUnauthorized: true, ca: [pki.caCert] });
    const trusted = await https.request({ method: 'GET', path: '/', port: ports[0], key: pki.clientKey, cert: pki.clientCert });
    const anonymous = await failureCode(https.get('/', ports[0]));
    return {
      status: created.status,
      settings: { mutualAuth: created.body.mutualAuth, rejectUnauthorized: created.body.rejectUnauthorized, ca: created.body.ca },
      trusted: trusted.status,
      anonymousRefused: anonymous !== 'answered',
    };
  });
  assert.equal(svc, mb);
  assert.equal(svc, { status: 201, settings: { mutualAuth: true, rejectUnauthorized: true, ca: [pki.caCert] }, trusted: 200, anonymousRefused: true });
});

test('ciphers: reported upper-cased and used for the handshake', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports }) => {
    const created = await api.post('/imposters', { protocol: 'https', port: ports[0], ciphers: 'ecdhe-rsa-aes128-gcm-sha256' });
    const tls12 = await handshake(ports[0], { maxVersion: 'TLSv1.2' });
    return { status: created.status, ciphers: created.body.ciphers, cipher: tls12.cipher };
  });
  assert.equal(svc, mb);
  assert.equal(svc, { status: 201, ciphers: 'ECDHE-RSA-AES128-GCM-SHA256', cipher: 'ECDHE-RSA-AES128-GCM-SHA256' });
});

test('unusable TLS settings (a key that is not PEM, an unknown cipher list) are a 400 at creation', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports }) => {
    const badKey = await api.post('/imposters', { protocol: 'https', port: ports[0], key: 'nope', cert: 'nope' });
    const badCiphers = await api.post('/imposters', { protocol: 'https', port: ports[1], ciphers: 'NOT-A-CIPHER' });
    const listed = (await api.get('/imposters')).body.imposters.length;
    return { statuses: [badKey.status, badCiphers.status], listed };
  });
  assert.equal(svc, mb);
  assert.equal(svc, { statuses: [400, 400], listed: 0 });
});

test('proxy to an origin requiring mutual auth, with the client key/cert on the proxy', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, https }) => {
    await api.post('/imposters', {
      protocol: 'https',
      port: ports[1],
      name: 'origin',
      mutualAuth: true,
      stubs: [{ responses: [{ is: { body: 'origin server' } }] }],
    });
    await api.post('/imposters', {
      protocol: 'https',
      port: ports[0],
      name: 'proxy',
      stubs: [{ responses: [{ proxy: { to: `https://localhost:${ports[1]}`, key: pki.clientKey, cert: pki.clientCert } }] }],
    });
    return (await https.get('/', ports[0])).body;
  });
  assert.is(svc, mb);
  assert.is(svc, 'origin server');
});

test('an https client on a plain http imposter fails at once (400 and close), not after a timeout', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports }) => {
    await api.post('/imposters', { protocol: 'http', port: ports[0] });
    const started = Date.now();
    const error = await handshake(ports[0]).then(
      () => 'handshake succeeded',
      (err: NodeJS.ErrnoException) => err.code ?? err.message,
    );
    return { error, fast: Date.now() - started < 2000 };
  });
  assert.equal(svc, mb);
  assert.equal(svc, { error: 'ERR_SSL_WRONG_VERSION_NUMBER', fast: true });
});

test('PUT /imposters with a saved https config leaves the running imposter unchanged (docs/imposters.md)', async () => {
  const { mb, svc } = await onBoth(async ({ api, ports, https }) => {
    await api.post('/imposters', { protocol: 'https', port: ports[0], recordRequests: true });
    await https.get('/', ports[0]);
    const saved = (await api.get('/imposters?replayable=true')).body;
    const put = await api.put('/imposters', saved);
    const after = (await api.get(`/imposters/${ports[0]}`)).body;
    return {
      put: put.status,
      savedHasKey: typeof saved.imposters[0].key === 'string',
      numberOfRequests: after.numberOfRequests,
      served: (await https.get('/', ports[0])).status,
    };
  });
  // mountebank recreates every imposter on PUT; SPEC keeps an unchanged one with its recorded requests.
  assert.equal(mb, { put: 200, savedHasKey: true, numberOfRequests: 0, served: 200 });
  assert.equal(svc, { put: 200, savedHasKey: true, numberOfRequests: svcIsMountebank ? 0 : 1, served: 200 });
});

test.run();

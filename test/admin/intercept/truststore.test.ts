import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { startInterceptServer, type InterceptServer } from '../../support/intercept.js';

const test = suite('intercept truststores: ca.pem, PKCS#12 (openssl), JKS (structure and integrity hash)');
const dir = tempDirForSuite(test, 'svc-truststore-');
let svc: InterceptServer;
let caPem: string;

test.before(async () => {
  svc = await startInterceptServer();
  caPem = (await svc.startIntercept({ returnCaKey: true })).caCertPem!;
});
test.after(async () => {
  await svc.stop();
});

function openssl(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync('openssl', args, { encoding: 'utf8' });
  if (run.error) throw new Error(`openssl is needed for this test (apt-get install openssl): ${run.error.message}`);
  return run;
}

async function download(path: string): Promise<{ status: number; type: string | undefined; bytes: Buffer }> {
  const res = await svc.admin('GET', path);
  return { status: res.status, type: res.headers['content-type'] as string | undefined, bytes: res.bodyBytes };
}

test('truststore.p12 (default password changeit) holds the CA with the Oracle trusted-cert attribute; openssl verifies its MAC', async () => {
  const p12 = await download('/intercept/truststore.p12');
  assert.is(p12.status, 200);
  assert.is(p12.type, 'application/x-pkcs12');
  const file = join(dir.path, 'default.p12');
  writeFileSync(file, p12.bytes);
  const info = openssl(['pkcs12', '-info', '-nokeys', '-in', file, '-passin', 'pass:changeit']);
  assert.is(info.status, 0, info.stderr);
  assert.match(info.stdout + info.stderr, /2\.16\.840\.1\.113894\.746875\.1\.1/);
  assert.match(info.stdout, /friendlyName: svc-intercept-ca/);
  const printed = info.stdout.slice(info.stdout.indexOf('-----BEGIN CERTIFICATE-----'));
  assert.is(new X509Certificate(printed).fingerprint256, new X509Certificate(caPem).fingerprint256);
  assert.not.match(info.stdout, /PRIVATE KEY/);
  const wrong = openssl(['pkcs12', '-info', '-nokeys', '-in', file, '-passin', 'pass:not-it']);
  assert.is.not(wrong.status, 0, 'a wrong password fails the MAC');
});

test('truststore.p12?password= uses the given password', async () => {
  const p12 = await download('/intercept/truststore.p12?password=s3cret');
  const file = join(dir.path, 'custom.p12');
  writeFileSync(file, p12.bytes);
  assert.is(openssl(['pkcs12', '-info', '-nokeys', '-in', file, '-passin', 'pass:s3cret']).status, 0);
  assert.is.not(openssl(['pkcs12', '-info', '-nokeys', '-in', file, '-passin', 'pass:changeit']).status, 0);
});

/** Reads a JKS file as sun.security.provider.JavaKeyStore writes it. */
function readJks(bytes: Buffer) {
  let at = 0;
  const u32 = () => {
    const v = bytes.readUInt32BE(at);
    at += 4;
    return v;
  };
  const utf = () => {
    const n = bytes.readUInt16BE(at);
    const s = bytes.subarray(at + 2, at + 2 + n).toString('utf8');
    at += 2 + n;
    return s;
  };
  const magic = u32();
  const version = u32();
  const count = u32();
  const tag = u32();
  const alias = utf();
  const timestamp = Number(bytes.readBigUInt64BE(at));
  at += 8;
  const certType = utf();
  const certLength = u32();
  const cert = bytes.subarray(at, at + certLength);
  at += certLength;
  return { magic, version, count, tag, alias, timestamp, certType, cert, body: bytes.subarray(0, at), digest: bytes.subarray(at) };
}

function jksDigest(password: string, body: Buffer): Buffer {
  return createHash('sha1').update(Buffer.from(password, 'utf16le').swap16()).update('Mighty Aphrodite').update(body).digest();
}

test('truststore.jks is a version-2 JKS with one trusted-cert entry and a valid integrity hash', async () => {
  const before = Date.now();
  const jks = await download('/intercept/truststore.jks');
  assert.is(jks.status, 200);
  const store = readJks(jks.bytes);
  assert.is(store.magic, 0xfeedfeed);
  assert.is(store.version, 2);
  assert.is(store.count, 1);
  assert.is(store.tag, 2, 'trusted certificate entry');
  assert.is(store.alias, 'svc-intercept-ca');
  assert.ok(store.timestamp >= before - 1000 && store.timestamp <= Date.now() + 1000);
  assert.is(store.certType, 'X.509');
  assert.ok(store.cert.equals(new X509Certificate(caPem).raw), 'the entry is the CA certificate');
  assert.is(store.digest.length, 20);
  assert.ok(store.digest.equals(jksDigest('changeit', store.body)), 'SHA-1 over password, "Mighty Aphrodite" and the data');
  const custom = readJks((await download('/intercept/truststore.jks?password=other')).bytes);
  assert.ok(custom.digest.equals(jksDigest('other', custom.body)));
  assert.not.ok(custom.digest.equals(jksDigest('changeit', custom.body)));
});

test('exportTruststore (the C ABI path) writes the file; an unwritable path is a 500; an unknown store is a 404', async () => {
  const out = join(dir.path, 'written.jks');
  const bytes = await svc.control.exportTruststore('jks', undefined, out);
  assert.ok(readFileSync(out).equals(bytes));
  try {
    await svc.control.exportTruststore('pkcs12', 'changeit', join(dir.path, 'missing-folder', 'x.p12'));
    assert.unreachable('writing into a missing folder must fail');
  } catch (err) {
    assert.is((err as { status?: number }).status, 500);
  }
  assert.is((await download('/intercept/truststore.pem')).status, 404);
});

test.run();

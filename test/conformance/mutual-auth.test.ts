/**
 * docs/cli.md rule 9: an https imposter with `mutualAuth` requires a client certificate. As in
 * mountebank 2.9.1, any presented certificate is accepted unless `rejectUnauthorized` is set; then it
 * must chain to `ca`. Certificates come from openssl in a temporary folder; clients are node's tls
 * (through https) and curl.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite } from '../support/in-process.js';
import { tempDirForSuite } from '../support/temp-dir.js';

const run = promisify(execFile);
const test = suite('https imposters: mutualAuth, rejectUnauthorized, ca');
const dir = tempDirForSuite(test, 'svc-mutual-auth-');
const svc = inProcessForSuite(test);

interface Identity {
  key: string;
  cert: string;
}
type Presented = 'none' | 'selfSigned' | 'fromCa' | 'fromOtherCa';
const identities = {} as Record<Exclude<Presented, 'none'>, Identity>;
let caCert = '';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function openssl(...args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir.path });
}

async function makeCa(name: string): Promise<void> {
  await openssl('req', '-x509', ...EC, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-subj', `/CN=${name}`, '-days', '2');
}

async function issue(name: string, ca: string): Promise<Identity> {
  await openssl('req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
  await openssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    'client.ext',
  );
  return identityOf(name);
}

function identityOf(name: string): Identity {
  return { key: readFileSync(join(dir.path, `${name}.key`), 'utf8'), cert: readFileSync(join(dir.path, `${name}.crt`), 'utf8') };
}

test.before(async () => {
  dir.file('client.ext', 'extendedKeyUsage=clientAuth\n');
  await makeCa('trusted-ca');
  await makeCa('other-ca');
  identities.fromCa = await issue('trusted-client', 'trusted-ca');
  identities.fromOtherCa = await issue('other-client', 'other-ca');
  await openssl('req', '-x509', ...EC, '-keyout', 'self.key', '-out', 'self.crt', '-subj', '/CN=self', '-days', '2');
  identities.selfSigned = identityOf('self');
  caCert = identityOf('trusted-ca').cert;
});

/** The status node's https client gets, or `refused` when the connection fails. */
function nodeStatus(port: number, presented: Presented): Promise<number | 'refused'> {
  const identity = presented === 'none' ? {} : identities[presented];
  return new Promise((resolve) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false, agent: false, ...identity }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve('refused'));
    req.end();
  });
}

/** The status curl gets, or `refused` when it fails (curl exits non-zero). */
async function curlStatus(port: number, presented: Presented): Promise<number | 'refused'> {
  const identity =
    presented === 'none' ? [] : ['--cert', join(dir.path, certFile(presented)), '--key', join(dir.path, certFile(presented).replace(/crt$/, 'key'))];
  try {
    const { stdout } = await run('curl', ['-sk', '--max-time', '10', '-o', '/dev/null', '-w', '%{http_code}', ...identity, `https://127.0.0.1:${port}/`]);
    return Number(stdout);
  } catch {
    return 'refused';
  }
}

function certFile(presented: Exclude<Presented, 'none'>): string {
  return { selfSigned: 'self.crt', fromCa: 'trusted-client.crt', fromOtherCa: 'other-client.crt' }[presented];
}

const ALL: Presented[] = ['none', 'selfSigned', 'fromCa', 'fromOtherCa'];

async function outcomes(config: Record<string, unknown>): Promise<Record<string, Record<Presented, number | 'refused'>>> {
  const port = await svc.createImposter({ protocol: 'https', stubs: [{ responses: [{ is: { statusCode: 200 } }] }], ...config });
  const node = {} as Record<Presented, number | 'refused'>;
  const curl = {} as Record<Presented, number | 'refused'>;
  for (const presented of ALL) {
    node[presented] = await nodeStatus(port, presented);
    curl[presented] = await curlStatus(port, presented);
  }
  return { node, curl };
}

test('mutualAuth: a client without a certificate is refused; any presented certificate is served', async () => {
  const expected = { none: 'refused', selfSigned: 200, fromCa: 200, fromOtherCa: 200 };
  assert.equal(await outcomes({ mutualAuth: true }), { node: expected, curl: expected });
});

test('mutualAuth with rejectUnauthorized and ca: only a certificate chaining to ca is served', async () => {
  const expected = { none: 'refused', selfSigned: 'refused', fromCa: 200, fromOtherCa: 'refused' };
  assert.equal(await outcomes({ mutualAuth: true, rejectUnauthorized: true, ca: [caCert] }), { node: expected, curl: expected });
});

test('without mutualAuth every client is served, with or without a certificate', async () => {
  const expected = { none: 200, selfSigned: 200, fromCa: 200, fromOtherCa: 200 };
  assert.equal(await outcomes({}), { node: expected, curl: expected });
});

test.run();

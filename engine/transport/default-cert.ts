import { generateKeyPair, randomBytes, sign } from 'node:crypto';
import { promisify } from 'node:util';
import type Forge from 'node-forge';

export interface KeyPair {
  key: string;
  cert: string;
}

// forge exports getTBSCertificate (the bytes to sign) but @types/node-forge does not declare it.
type ForgeTbs = { getTBSCertificate(cert: Forge.pki.Certificate): Forge.asn1.Asn1 };
const generateKeyPairAsync = promisify(generateKeyPair);
let pending: Promise<KeyPair> | null = null;

/**
 * The self-signed pair https imposters use without `key`/`cert` (mountebank ships a fixed one).
 * Generated once per process on first use, so no private key lives in the repository.
 */
export function defaultKeyPair(): Promise<KeyPair> {
  pending ??= generate();
  return pending;
}

async function generate(): Promise<KeyPair> {
  // Loaded here: node-forge costs ~75 ms at start-up and only https imposters without a cert need it.
  const { default: forge } = await import('node-forge');
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  // Positive serial: a leading byte below 0x80.
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 24 * 3600 * 1000);
  cert.validity.notAfter = new Date(now + 10 * 365 * 24 * 3600 * 1000);
  const name = [
    { name: 'commonName', value: 'localhost' },
    { name: 'organizationName', value: 'svc' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
        { type: 7, ip: '::1' },
      ],
    },
  ]);
  // forge builds the certificate; node:crypto signs it (measured ~75x faster than forge's RSA).
  cert.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption;
  cert.signatureOid = forge.pki.oids.sha256WithRSAEncryption;
  const tbs = forge.asn1.toDer((forge.pki as unknown as ForgeTbs).getTBSCertificate(cert)).getBytes();
  cert.signature = sign('sha256', Buffer.from(tbs, 'binary'), privateKey).toString('binary');
  return { key: privateKey, cert: forge.pki.certificateToPem(cert) };
}

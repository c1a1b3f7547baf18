/**
 * The intercept CA and the leaf certificates it issues. node-forge builds the certificate
 * structures (it has the ASN.1 pieces); node:crypto signs them (0.33 ms against forge's 25 ms, see
 * ARCHITECTURE.md) and holds the keys, so a user's CA may carry an RSA, EC or Ed25519 key.
 */
import { createPrivateKey, generateKeyPair, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { permissiveCiphers } from '../../engine/transport/index.js';
import forge from 'node-forge';
import { errorText } from '../../engine/model/index.js';

const { asn1, pki } = forge;

/** The CA material as PEM; `keyPem` is secret. */
export interface CaMaterial {
  certPem: string;
  keyPem: string;
}

interface SignatureScheme {
  /** AlgorithmIdentifier OID. */
  oid: string;
  /** RSA identifiers carry a NULL parameter; ECDSA and EdDSA ones carry none. */
  nullParameter: boolean;
  /** node:crypto digest name; null for Ed25519, which hashes internally. */
  digest: string | null;
}

const SCHEMES: Record<string, SignatureScheme> = {
  rsa: { oid: '1.2.840.113549.1.1.11', nullParameter: true, digest: 'sha256' },
  ec: { oid: '1.2.840.10045.4.3.2', nullParameter: false, digest: 'sha256' },
  ed25519: { oid: '1.3.101.112', nullParameter: false, digest: null },
};

const DAY_MS = 24 * 60 * 60 * 1000;
/** Leaves stay under the 398-day ceiling that browsers and Apple clients enforce. */
const LEAF_VALIDITY_DAYS = 365;
const CA_VALIDITY_DAYS = 3650;
/** Minted leaves kept per CA; the oldest is dropped beyond this (a proxy may see many hosts). */
const LEAF_CACHE_SIZE = 1000;

// forge builds the TBSCertificate but does not type it.
const getTbsCertificate = (pki as unknown as { getTBSCertificate(cert: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate;

function generateRsaKeys(): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  return new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (err, publicKey, privateKey) => (err ? reject(err) : resolve({ publicKey, privateKey })));
  });
}

function algorithmIdentifier(scheme: SignatureScheme): forge.asn1.Asn1 {
  const parts = [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(scheme.oid).getBytes())];
  if (scheme.nullParameter) parts.push(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, ''));
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, parts);
}

function toForgePublicKey(key: KeyObject): forge.pki.PublicKey {
  return pki.publicKeyFromPem(key.export({ type: 'spki', format: 'pem' }).toString());
}

/** A positive 128-bit serial number in hex (the leading byte's high bit cleared). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

/** The subject Name of a DER certificate, as ASN.1, byte-exact (issuer/subject chaining compares bytes). */
function subjectOf(certDer: Buffer): forge.asn1.Asn1 {
  const certificate = asn1.fromDer(forge.util.createBuffer(certDer.toString('binary')));
  const tbs = (certificate.value as forge.asn1.Asn1[])[0].value as forge.asn1.Asn1[];
  // TBSCertificate: [0] version (explicit, optional), serial, signature, issuer, validity, subject, ...
  const first = tbs[0].tagClass === asn1.Class.CONTEXT_SPECIFIC ? 1 : 0;
  return tbs[first + 4];
}

function schemeOf(key: KeyObject): SignatureScheme {
  const scheme = key.asymmetricKeyType === undefined ? undefined : SCHEMES[key.asymmetricKeyType];
  if (!scheme) throw new Error(`CA key type ${key.asymmetricKeyType ?? 'unknown'} is not supported (use RSA, EC or Ed25519)`);
  return scheme;
}

interface CertificateFields {
  publicKey: forge.pki.PublicKey;
  subject: forge.pki.CertificateField[];
  /** The issuer Name; undefined for a self-signed certificate (issuer = subject). */
  issuer?: forge.asn1.Asn1;
  validityDays: number;
  extensions: unknown[];
}

/** Builds the TBSCertificate with forge and signs it with node:crypto; returns PEM. */
function issue(fields: CertificateFields, signer: KeyObject): string {
  const scheme = schemeOf(signer);
  const cert = pki.createCertificate();
  cert.publicKey = fields.publicKey;
  cert.serialNumber = serialNumber();
  // Back-dated a day so a client whose clock runs a little behind still accepts it.
  const now = Date.now();
  cert.validity.notBefore = new Date(now - DAY_MS);
  cert.validity.notAfter = new Date(now + fields.validityDays * DAY_MS);
  cert.setSubject(fields.subject);
  cert.setIssuer(fields.subject);
  cert.setExtensions(fields.extensions);
  cert.siginfo.algorithmOid = SCHEMES.rsa.oid;
  const tbs = getTbsCertificate(cert);
  const parts = tbs.value as forge.asn1.Asn1[];
  parts[2] = algorithmIdentifier(scheme);
  if (fields.issuer) parts[3] = fields.issuer;
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign(scheme.digest, tbsDer, signer);
  const certificate = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    tbs,
    algorithmIdentifier(scheme),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, '\u0000' + signature.toString('binary')),
  ]);
  const der = Buffer.from(asn1.toDer(certificate).getBytes(), 'binary');
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}

/** Mints a fresh self-signed RSA CA for one intercept session. */
export async function mintEphemeralCa(): Promise<CaMaterial> {
  const { publicKey, privateKey } = await generateRsaKeys();
  const forgeKey = toForgePublicKey(publicKey);
  const certPem = issue(
    {
      publicKey: forgeKey,
      subject: [
        { name: 'commonName', value: `svc intercept CA ${new Date().toISOString().slice(0, 10)} ${randomBytes(4).toString('hex')}` },
        { name: 'organizationName', value: 'svc' },
      ],
      validityDays: CA_VALIDITY_DAYS,
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
        { name: 'subjectKeyIdentifier' },
      ],
    },
    privateKey,
  );
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/**
 * A loaded CA: checks the pair once, then issues leaf TLS contexts per host on demand. All leaves
 * share one RSA key generated per session, so a new host costs one signature, not a key generation.
 */
export class CertificateAuthority {
  readonly certPem: string;
  readonly keyPem: string;
  private readonly key: KeyObject;
  private readonly issuerName: forge.asn1.Asn1;
  private readonly leafKeyPem: string;
  private readonly leafPublicKey: forge.pki.PublicKey;
  private readonly contexts = new Map<string, SecureContext>();

  private constructor(material: CaMaterial, leafKeys: { publicKey: KeyObject; privateKey: KeyObject }) {
    this.certPem = material.certPem;
    this.keyPem = material.keyPem;
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(material.certPem);
    } catch (err) {
      throw new Error(`CA certificate is not a PEM certificate: ${errorText(err)}`);
    }
    try {
      this.key = createPrivateKey(material.keyPem);
    } catch (err) {
      throw new Error(`CA key is not a PEM private key: ${errorText(err)}`);
    }
    if (!certificate.ca) throw new Error('CA certificate is not a CA (basicConstraints CA:TRUE is missing)');
    if (!certificate.checkPrivateKey(this.key)) throw new Error('CA key does not belong to the CA certificate');
    schemeOf(this.key);
    this.issuerName = subjectOf(certificate.raw);
    this.leafKeyPem = leafKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    this.leafPublicKey = toForgePublicKey(leafKeys.publicKey);
  }

  /**
   * Validates the material (throws an Error saying what is wrong) and prepares the leaf key; the
   * leaf key is generated while an ephemeral CA is still being minted.
   */
  static async load(material: CaMaterial | Promise<CaMaterial>): Promise<CertificateAuthority> {
    const [ready, leafKeys] = await Promise.all([material, generateRsaKeys()]);
    return new CertificateAuthority(ready, leafKeys);
  }

  /** The TLS context presenting a leaf for `host` (a DNS name or an IP address), minted once per host. */
  contextFor(host: string): SecureContext {
    const name = host.toLowerCase();
    let context = this.contexts.get(name);
    if (context) return context;
    // Level 0 like every TLS context svc serves: the leaf is signed by whatever CA the user brings.
    context = createSecureContext({ key: this.leafKeyPem, cert: this.leafPem(name), ciphers: permissiveCiphers(undefined) });
    if (this.contexts.size >= LEAF_CACHE_SIZE) this.contexts.delete(this.contexts.keys().next().value as string);
    this.contexts.set(name, context);
    return context;
  }

  /** A leaf certificate for `host`, PEM (exposed for tests and for the C ABI's diagnostics). */
  leafPem(host: string): string {
    const altName = isIP(host) ? { type: 7, ip: host } : { type: 2, value: host };
    return issue(
      {
        publicKey: this.leafPublicKey,
        // A common name is limited to 64 characters; the SAN carries the name clients check.
        subject: [{ name: 'commonName', value: host.slice(0, 64) }],
        issuer: this.issuerName,
        validityDays: LEAF_VALIDITY_DAYS,
        extensions: [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
          { name: 'extKeyUsage', serverAuth: true },
          { name: 'subjectAltName', altNames: [altName] },
        ],
      },
      this.key,
    );
  }
}

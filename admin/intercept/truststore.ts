/**
 * Trust-only stores holding the intercept CA certificate (docs/intercept.md rule 4): PKCS#12 built with
 * forge's ASN.1 and PKCS#12 key derivation, and JKS written here (no JKS writer exists on the
 * registry; the format is small and stable).
 */
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { TRUSTSTORE_ALIAS, type TruststoreFormat } from './truststore-format.js';

const { asn1, pki } = forge;

/** Oracle's "trusted key usage" bag attribute: without it Java ignores a certificate in a PKCS#12 store. */
const ORACLE_TRUSTED_KEY_USAGE = '2.16.840.1.113894.746875.1.1';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
const MAC_ITERATIONS = 2048;
const JKS_MAGIC = 0xfeedfeed;
const JKS_VERSION = 2;
const JKS_TRUSTED_CERT = 2;

function derOf(certPem: string): Buffer {
  return new X509Certificate(certPem).raw;
}

function node(type: number, constructed: boolean, value: string | forge.asn1.Asn1[]): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, type, constructed, value);
}

function oid(id: string): forge.asn1.Asn1 {
  return node(asn1.Type.OID, false, asn1.oidToDer(id).getBytes());
}

function explicit(tag: number, value: forge.asn1.Asn1): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, true, [value]);
}

function octets(bytes: string): forge.asn1.Asn1 {
  return node(asn1.Type.OCTETSTRING, false, bytes);
}

/** PKCS#7 ContentInfo of type data wrapping DER bytes. */
function dataContent(der: string): forge.asn1.Asn1 {
  return node(asn1.Type.SEQUENCE, true, [oid(pki.oids.data), explicit(0, octets(der))]);
}

/** A PKCS#12 PFX with one certificate bag (no key), MAC-protected with the password. */
export function pkcs12Truststore(certPem: string, password: string): Buffer {
  const certDer = derOf(certPem).toString('binary');
  const attributes = node(asn1.Type.SET, true, [
    node(asn1.Type.SEQUENCE, true, [oid(pki.oids.friendlyName), node(asn1.Type.SET, true, [node(asn1.Type.BMPSTRING, false, TRUSTSTORE_ALIAS)])]),
    node(asn1.Type.SEQUENCE, true, [oid(ORACLE_TRUSTED_KEY_USAGE), node(asn1.Type.SET, true, [oid(ANY_EXTENDED_KEY_USAGE)])]),
  ]);
  const certBag = node(asn1.Type.SEQUENCE, true, [
    oid(pki.oids.certBag),
    explicit(0, node(asn1.Type.SEQUENCE, true, [oid(pki.oids.x509Certificate), explicit(0, octets(certDer))])),
    attributes,
  ]);
  const safeContents = node(asn1.Type.SEQUENCE, true, [certBag]);
  const authenticatedSafe = node(asn1.Type.SEQUENCE, true, [dataContent(asn1.toDer(safeContents).getBytes())]);
  const safeDer = asn1.toDer(authenticatedSafe).getBytes();

  const salt = randomBytes(8).toString('binary');
  const macKey = forge.pkcs12.generateKey(password, forge.util.createBuffer(salt), 3, MAC_ITERATIONS, 20);
  const hmac = forge.hmac.create();
  hmac.start('sha1', macKey.getBytes());
  hmac.update(safeDer);
  const macData = node(asn1.Type.SEQUENCE, true, [
    node(asn1.Type.SEQUENCE, true, [node(asn1.Type.SEQUENCE, true, [oid(pki.oids.sha1), node(asn1.Type.NULL, false, '')]), octets(hmac.digest().getBytes())]),
    octets(salt),
    node(asn1.Type.INTEGER, false, asn1.integerToDer(MAC_ITERATIONS).getBytes()),
  ]);
  const pfx = node(asn1.Type.SEQUENCE, true, [node(asn1.Type.INTEGER, false, asn1.integerToDer(3).getBytes()), dataContent(safeDer), macData]);
  return Buffer.from(asn1.toDer(pfx).getBytes(), 'binary');
}

/** Java's DataOutput.writeUTF: a 2-byte length and modified UTF-8 (our strings are ASCII). */
function utf(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

/**
 * A JKS keystore (version 2) with one trusted-certificate entry. Integrity: SHA-1 over the password
 * as UTF-16BE, the bytes "Mighty Aphrodite", then everything before the digest (sun.security.provider.JavaKeyStore).
 */
export function jksTruststore(certPem: string, password: string, now = Date.now()): Buffer {
  const certDer = derOf(certPem);
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigUInt64BE(BigInt(now));
  const body = Buffer.concat([
    uint32(JKS_MAGIC),
    uint32(JKS_VERSION),
    uint32(1),
    uint32(JKS_TRUSTED_CERT),
    utf(TRUSTSTORE_ALIAS),
    timestamp,
    utf('X.509'),
    uint32(certDer.length),
    certDer,
  ]);
  const passwordBytes = Buffer.alloc(password.length * 2);
  for (let i = 0; i < password.length; i += 1) passwordBytes.writeUInt16BE(password.charCodeAt(i), i * 2);
  const digest = createHash('sha1').update(passwordBytes).update('Mighty Aphrodite', 'utf8').update(body).digest();
  return Buffer.concat([body, digest]);
}

export function truststore(format: TruststoreFormat, certPem: string, password: string): Buffer {
  return format === 'pkcs12' ? pkcs12Truststore(certPem, password) : jksTruststore(certPem, password);
}

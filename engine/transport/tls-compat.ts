import { X509Certificate } from 'node:crypto';
import { DEFAULT_CIPHERS } from 'node:tls';

/**
 * The cipher list for a TLS context that must take whatever key and certificate the user brings.
 * OpenSSL 3.5 (Node 24) defaults to security level 2, which refuses RSA keys under 2048 bits ("ee key
 * too small") and SHA-1 signatures; a mock server stands in for old test origins, so its contexts run
 * at level 0. An explicit level in the user's list is kept; no list means node's default list, so the
 * cipher negotiated is the one node (and mountebank) would pick.
 */
export function permissiveCiphers(ciphers: string | undefined): string {
  const list = ciphers ?? DEFAULT_CIPHERS;
  return /@SECLEVEL=/i.test(list) ? list : `${list}:@SECLEVEL=0`;
}

// DER of the signature algorithm OIDs that OpenSSL's default level refuses: md5WithRSA, sha1WithRSA, dsaWithSHA1, ecdsaWithSHA1.
const WEAK_SIGNATURES: Array<[string, Buffer]> = [
  ['MD5', Buffer.from('06092a864886f70d010104', 'hex')],
  ['SHA-1', Buffer.from('06092a864886f70d010105', 'hex')],
  ['SHA-1', Buffer.from('06072a8648ce380403', 'hex')],
  ['SHA-1', Buffer.from('06072a8648ce3d0401', 'hex')],
];

/** Bits below which a key is refused at OpenSSL's default security level (112-bit strength). */
const MIN_BITS: Record<string, number> = { rsa: 2048, 'rsa-pss': 2048, dsa: 2048, dh: 2048, ec: 224 };

/**
 * Why a PEM certificate would be refused at OpenSSL's default security level ("1024-bit rsa key",
 * "SHA-1 signature"); empty for a strong one or for text that is not a certificate (loading it
 * reports that).
 */
export function weakCertificateReasons(pem: string | undefined): string[] {
  if (pem === undefined) return [];
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return [];
  }
  const reasons: string[] = [];
  const key = cert.publicKey;
  const details = key.asymmetricKeyDetails;
  const bits = details?.modulusLength ?? curveBits(details?.namedCurve);
  const min = MIN_BITS[key.asymmetricKeyType ?? ''];
  if (bits !== undefined && min !== undefined && bits < min) reasons.push(`${bits}-bit ${key.asymmetricKeyType} key`);
  // The signature algorithm sits in the DER beside the signature; its OID bytes identify it.
  const weak = WEAK_SIGNATURES.find(([, oid]) => cert.raw.includes(oid));
  if (weak) reasons.push(`${weak[0]} signature`);
  return reasons;
}

function curveBits(curve: string | undefined): number | undefined {
  const digits = curve === undefined ? null : /(\d{3})/.exec(curve);
  return digits ? Number(digits[1]) : undefined;
}

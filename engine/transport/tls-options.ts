import type { TlsOptions } from 'node:tls';
import type { ListenerOptions } from './contract.js';
import { defaultKeyPair } from './default-cert.js';

/** node:tls server options for an https listener. */
export async function tlsServerOptions(options: ListenerOptions): Promise<TlsOptions> {
  // Like mountebank, a missing key or cert is replaced by the default one independently.
  const fallback = options.key === undefined || options.cert === undefined ? await defaultKeyPair() : null;
  return {
    key: options.key ?? fallback?.key,
    cert: options.cert ?? fallback?.cert,
    ALPNProtocols: options.http2 ? ['h2', 'http/1.1'] : ['http/1.1'],
    requestCert: options.mutualAuth === true,
    // mutualAuth asks for a client certificate but, as in mountebank, does not reject untrusted ones.
    rejectUnauthorized: false,
  };
}

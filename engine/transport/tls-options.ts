import type { TlsOptions } from 'node:tls';
import { DEFAULT_TIMEOUTS, type ListenerOptions } from './contract.js';
import { defaultKeyPair } from './default-cert.js';
import { permissiveCiphers } from './tls-compat.js';

/**
 * ALPN as a fixed list, or chosen per handshake when HTTP/2 may be withdrawn (`http2Allowed`); no
 * common protocol rejects the handshake either way.
 */
function alpn(options: ListenerOptions): Pick<TlsOptions, 'ALPNProtocols' | 'ALPNCallback'> {
  const allowed = options.http2Allowed;
  if (!options.http2 || allowed === undefined) return { ALPNProtocols: options.http2 ? ['h2', 'http/1.1'] : ['http/1.1'] };
  return {
    ALPNCallback: ({ protocols }) => {
      if (protocols.includes('h2') && allowed()) return 'h2';
      return protocols.includes('http/1.1') ? 'http/1.1' : undefined;
    },
  };
}

function handshakeTimeout(headersMs: number): Pick<TlsOptions, 'handshakeTimeout'> {
  return headersMs > 0 ? { handshakeTimeout: headersMs } : {};
}

/** node:tls server options for an https listener. */
export async function tlsServerOptions(options: ListenerOptions): Promise<TlsOptions> {
  // Like mountebank, a missing key or cert is replaced by the default one independently.
  const fallback = options.key === undefined || options.cert === undefined ? await defaultKeyPair() : null;
  return {
    key: options.key ?? fallback?.key,
    cert: options.cert ?? fallback?.cert,
    ...alpn(options),
    requestCert: options.mutualAuth === true,
    // As in mountebank, mutualAuth alone accepts any client certificate; untrusted ones are refused
    // only when rejectUnauthorized is set as well.
    rejectUnauthorized: options.mutualAuth === true && options.rejectUnauthorized === true,
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    // Whatever key and certificate the user gives are served, weak ones included (the manager logs a warning).
    ciphers: permissiveCiphers(options.ciphers),
    // A handshake is a request head's first part: the head timeout bounds it (node's own default is 120 s).
    ...handshakeTimeout((options.timeouts ?? DEFAULT_TIMEOUTS).headersMs),
  };
}

import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { ListenerOptions } from './contract.js';
import { defaultKeyPair } from './default-cert.js';

export interface TlsSetup {
  secureContext: tls.SecureContext;
  alpn: string[];
  requestCert: boolean;
}

export async function createTlsSetup(options: ListenerOptions): Promise<TlsSetup> {
  // Like mountebank, a missing key or cert is replaced by the default one independently.
  const fallback = options.key === undefined || options.cert === undefined ? await defaultKeyPair() : null;
  return {
    secureContext: tls.createSecureContext({
      key: options.key ?? fallback?.key,
      cert: options.cert ?? fallback?.cert,
    }),
    alpn: options.http2 ? ['h2', 'http/1.1'] : ['http/1.1'],
    requestCert: options.mutualAuth === true,
  };
}

/**
 * Starts a server-side TLS session on an accepted TCP socket. Wrapping the socket ourselves (rather
 * than tls.Server) keeps the TCP socket in hand, which is where a fault's RST has to go.
 */
export function acceptTls(raw: Socket, setup: TlsSetup, onSecure: (socket: tls.TLSSocket) => void): void {
  const socket = new tls.TLSSocket(raw, {
    isServer: true,
    secureContext: setup.secureContext,
    ALPNProtocols: setup.alpn,
    requestCert: setup.requestCert,
    // mutualAuth asks for a client certificate but, as in mountebank, does not reject untrusted ones.
    rejectUnauthorized: false,
  });
  socket.on('error', () => raw.destroy());
  socket.once('secure', () => onSecure(socket));
}

import net from 'node:net';
import tls from 'node:tls';
import type { ListenerOptions } from './contract.js';
import { tlsServerOptions } from './tls-options.js';

/**
 * What `createListener` would fail on that can be known before anything changes (a bulk replace
 * validates the whole set first): TLS material that does not load, and, with `probePort`, a port
 * another process holds (bound for a moment, then released). Rejects with the error binding would give.
 */
export async function checkBindable(options: ListenerOptions, probePort: boolean): Promise<void> {
  if (options.protocol === 'https') tls.createSecureContext(await tlsServerOptions(options));
  if (!probePort || options.port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port: options.port, host: options.host }, () => probe.close(() => resolve()));
  });
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const UPSTREAM_BODY = 'svc verify upstream';

/** The stand-in origin proxy stubs are pointed at under `--verify-dynamic`: counts what reaches it. */
export interface EmbeddedUpstream {
  readonly origin: string;
  readonly received: number;
  close(): Promise<void>;
}

export function startUpstream(): Promise<EmbeddedUpstream> {
  let received = 0;
  const server: Server = createServer((req, res) => {
    received += 1;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(UPSTREAM_BODY) });
      res.end(UPSTREAM_BODY);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      // An accept failure (EMFILE) fails the step whose proxy needed that connection, which reports it;
      // as an unheard 'error' it would end the whole verify run instead.
      server.on('error', () => undefined);
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        get received() {
          return received;
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** The proxy responses of a stub copy aimed at `origin` (proxy.to is an origin: no path). */
export function aimProxiesAt(stub: Record<string, unknown>, origin: string): void {
  if (!Array.isArray(stub.responses)) return;
  for (const response of stub.responses as unknown[]) {
    if (response === null || typeof response !== 'object') continue;
    const proxy = (response as Record<string, unknown>).proxy;
    if (proxy !== null && typeof proxy === 'object' && typeof (proxy as Record<string, unknown>).to === 'string') {
      (proxy as Record<string, unknown>).to = origin;
    }
  }
}

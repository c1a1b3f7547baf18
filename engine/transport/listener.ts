import net, { type AddressInfo, type Socket } from 'node:net';
import tls from 'node:tls';
import { DEFAULT_TIMEOUTS, type Listener, type ListenerOptions, type RequestHandler } from './contract.js';
import { DeadlineSweep, type Expiring } from './deadline-sweep.js';
import { H2Bridge } from './h2-bridge.js';
import { Http1Connection, type ConnectionOptions } from './http1-connection.js';
import { tlsServerOptions } from './tls-options.js';

function ignore(): void {}

/** Destroys `raw` when its TLS handshake is not done `headersMs` after accept (0: never). */
function handshakeDeadline(raw: Socket, headersMs: number, sweep: DeadlineSweep): Expiring {
  const pending: Expiring = { deadline: headersMs > 0 ? Date.now() + headersMs : 0, expire: () => raw.destroy() };
  sweep.add(pending);
  return pending;
}

function listen(server: net.Server, options: ListenerOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    // No host: every interface, IPv6 and IPv4, as mountebank binds.
    if (options.fd !== undefined) server.listen({ fd: options.fd });
    else server.listen({ port: options.port, host: options.host });
  });
}

function peerKey(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

export async function createListener(options: ListenerOptions, handler: RequestHandler): Promise<Listener> {
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  const sweep = new DeadlineSweep(timeouts);
  const h2 = options.http2 ? new H2Bridge(handler, options.maxBodyBytes, timeouts, sweep, options.bodyBudget) : null;
  // Every TCP socket, for close(); on https also by peer address, because faults reset the TCP socket
  // beneath TLS and tls.Server hands out only the TLS socket.
  const sockets = new Set<Socket>();
  const rawByPeer = new Map<string, Socket>();
  const connectionOptions: ConnectionOptions = {
    handler,
    maxBodyBytes: options.maxBodyBytes,
    timeouts,
    sweep,
    bodyBudget: options.bodyBudget,
    sockets,
    // A plain port's HTTP/2 preface hands the socket to node:http2 (paused, bytes unshifted, never resumed here).
    adoptHttp2: h2 === null ? undefined : (socket) => h2.adopt(socket, socket),
  };
  // allowHalfOpen: a client that half-closes still gets its pending answers (or the 400 for a cut body).
  // On https only once the handshake is done (set in 'secureConnection'): before it, a peer's FIN must
  // close the socket, which only node's TLS socket sees.
  const secure = options.protocol === 'https';
  const server = secure
    ? tls.createServer({ allowHalfOpen: false, noDelay: true, ...(await tlsServerOptions(options)) })
    : net.createServer({ allowHalfOpen: true, noDelay: true });

  /** https: the deadline of each handshake under way. */
  const handshakes = new Map<Socket, Expiring>();
  const handshakeDone = (raw: Socket): void => {
    const pending = handshakes.get(raw);
    if (pending === undefined) return;
    handshakes.delete(raw);
    sweep.delete(pending);
  };
  const events = options.events;
  const allowConnection = options.allowConnection;
  server.on('connection', (raw: Socket) => {
    events?.accepted();
    if (allowConnection !== undefined && !allowConnection(raw.remoteAddress)) {
      raw.on('error', ignore);
      raw.destroy();
      return;
    }
    sockets.add(raw);
    if (secure) {
      raw.on('error', ignore);
      const key = peerKey(raw);
      rawByPeer.set(key, raw);
      // The head timeout bounds the handshake from accept, absolutely: node's handshakeTimeout is an idle
      // timer (a ClientHello trickled a byte at a time resets it) and only reports, it closes nothing.
      handshakes.set(raw, handshakeDeadline(raw, timeouts.headersMs, sweep));
      raw.on('close', () => {
        handshakeDone(raw);
        sockets.delete(raw);
        rawByPeer.delete(key);
      });
      return;
    }
    // The connection removes itself from `sockets` on close, and sniffs for h2c while HTTP/2 is allowed.
    new Http1Connection(raw, raw, connectionOptions, h2 !== null && (options.http2Allowed?.() ?? true));
  });
  if (secure) {
    const requireClientCert = options.mutualAuth === true;
    server.on('secureConnection', (socket: tls.TLSSocket) => {
      const raw = rawByPeer.get(peerKey(socket));
      if (raw !== undefined) handshakeDone(raw);
      // After the handshake node reports TLS failures (a client renegotiating past node's limit) as an
      // 'error' and closes nothing; the connection is over.
      socket.on('error', () => socket.destroy());
      // With mutualAuth alone node accepts a client that presents no certificate (only rejectUnauthorized
      // refuses that, and it also refuses self-signed ones); docs/cli.md requires one, so close the connection.
      if (raw === undefined || (requireClientCert && socket.getPeerX509Certificate() === undefined)) {
        socket.destroy();
        return;
      }
      socket.allowHalfOpen = true;
      if (h2 !== null && socket.alpnProtocol === 'h2') h2.adopt(socket, raw);
      else new Http1Connection(socket, raw, connectionOptions);
    });
    // Failed handshakes concern one client only; node leaves a timed-out one open.
    server.on('tlsClientError', (_error: Error, socket: tls.TLSSocket) => socket.destroy());
  }

  await listen(server, options);
  // Accept failures (EMFILE...) must not take the process down; metrics hear about them.
  server.on('error', events ? (error: Error) => events.acceptFailed(error) : ignore);
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  // node keeps the descriptor on the server's handle only; -1 where the platform has none (Windows).
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd ?? -1;
  return {
    port,
    fd,
    close(): Promise<void> {
      closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        sweep.stop();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

import http2, { type Http2ServerRequest, type Http2Session, type OutgoingHttpHeaders } from 'node:http2';
import type { IncomingMessage, OutgoingHttpHeader, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  CONNECTION_SPECIFIC_HEADERS,
  DeadlineSweep,
  HTTP2_SERVER_OPTIONS,
  isHttp2Disabled,
  serveHttp2,
  sniffHttp2Preface,
  type ConnectionTimeouts,
} from '../../engine/transport/index.js';

const SILENT_CLIENT_MS = 60_000;

type HeaderInput = OutgoingHttpHeaders | readonly OutgoingHttpHeader[] | readonly (readonly string[])[];

/** Headers the admin plane writes for HTTP/1 (objects or node's flat raw lists), as an HTTP/2 header object. */
function h2HeadersOf(headers: HeaderInput | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const add = (name: string, value: OutgoingHttpHeader | undefined): void => {
    const lower = name.toLowerCase();
    if (value === undefined || CONNECTION_SPECIFIC_HEADERS.has(lower)) return;
    const previous = out[lower];
    if (previous === undefined) out[lower] = value;
    else out[lower] = [...(Array.isArray(previous) ? previous : [String(previous)]), ...(Array.isArray(value) ? value : [String(value)])];
  };
  if (headers === undefined) return out;
  if (Array.isArray(headers)) {
    const list = headers as readonly (OutgoingHttpHeader | readonly string[])[];
    if (list.length > 0 && Array.isArray(list[0])) {
      for (const pair of list as readonly (readonly string[])[]) add(String(pair[0]), pair[1]);
    } else {
      for (let k = 0; k + 1 < list.length; k += 2) add(String(list[k]), list[k + 1] as OutgoingHttpHeader);
    }
    return out;
  }
  for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders)) add(name, value);
  return out;
}

/** The compat response with HTTP/1-only headers dropped, so handlers written for node:http run unchanged. */
class AdminH2Response extends http2.Http2ServerResponse {
  override setHeader(name: string, value: number | string | readonly string[]): void {
    if (!CONNECTION_SPECIFIC_HEADERS.has(name.toLowerCase())) super.setHeader(name, value);
  }

  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const headers = (typeof rest[0] === 'string' ? rest[1] : rest[0]) as HeaderInput | undefined;
    return super.writeHead(statusCode, h2HeadersOf(headers));
  }
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * docs/cli.md rule 4 for a node:http plane (admin, metrics): the server keeps its port and HTTP/1
 * handling, and a connection opening with the HTTP/2 preface (h2c, prior knowledge) goes to a
 * node:http2 server running the same handler through the compat API. The sniff costs one read per
 * connection, nothing per request. A no-op when `SVC_DISABLE_HTTP2` is truthy.
 */
export function acceptH2c(server: Server, handler: Handler): void {
  if (isHttp2Disabled()) return;
  // node:http parses a connection from its own 'connection' listener; it now runs only for HTTP/1.
  const http1 = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  // The compat objects offer the IncomingMessage/ServerResponse subset the admin plane uses.
  const h2 = http2.createServer(
    { ...HTTP2_SERVER_OPTIONS, Http2ServerResponse: AdminH2Response },
    handler as unknown as (request: Http2ServerRequest, response: AdminH2Response) => void,
  );
  const sessions = new Set<Http2Session>();
  h2.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  // Session failures concern one client only.
  h2.on('sessionError', () => {});
  // Sessions are bounded by the node:http server's own timeouts, as its HTTP/1 connections are.
  const timeouts: ConnectionTimeouts = { keepAliveMs: server.keepAliveTimeout, headersMs: server.headersTimeout, requestMs: server.requestTimeout };
  const sweep = new DeadlineSweep(timeouts);
  server.once('close', () => sweep.stop());
  // Sockets neither node:http nor node:http2 owns yet: closeAllConnections must reach them too, or
  // server.close() waits for a silent client.
  const sniffing = new Set<Socket>();
  server.prependListener('connection', (socket: Socket) => {
    sniffing.add(socket);
    socket.once('close', () => sniffing.delete(socket));
    // Until node:http or node:http2 owns the socket, its errors (a client's RST) and silence are ours.
    const onError = (): void => {
      socket.destroy();
    };
    socket.on('error', onError);
    const onSilent = (): void => {
      socket.destroy();
    };
    socket.setTimeout(server.headersTimeout || SILENT_CLIENT_MS, onSilent);
    const handOver = (bytes: Buffer): void => {
      sniffing.delete(socket);
      socket.off('timeout', onSilent);
      socket.off('error', onError);
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(bytes);
    };
    sniffHttp2Preface(
      socket,
      (bytes) => {
        handOver(bytes);
        serveHttp2(h2, socket, socket, timeouts, sweep);
      },
      (bytes) => {
        handOver(bytes);
        for (const listener of http1) listener.call(server, socket);
        socket.resume();
      },
    );
  });
  // closeAllConnections covers only the connections node:http parses; HTTP/2 sessions close with them.
  const closeHttp1 = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeHttp1();
    for (const socket of sniffing) socket.destroy();
    for (const session of sessions) session.destroy();
  };
}

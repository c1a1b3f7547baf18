import { METHODS, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_TIMEOUTS, DeadlineSweep, Http1Connection, type RequestHandler } from '../engine/transport/index.js';

/** Methods node:http's parser accepts; any other token method is a 400 with an empty body there. */
const NODE_METHODS = new Set(METHODS);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Bytes read before deciding without a space: longer than any method node knows. */
const LONGEST_METHOD = 32;

export interface AnyMethodOptions {
  /** Serves one request read by the engine's own HTTP/1 parser. */
  handler: RequestHandler;
  maxBodyBytes: number;
  /** How long a connection may stay silent before its first request line (when node:http sets no headersTimeout). */
  idleMs: number;
}

/**
 * docs/imposters.md (the gateway takes any method) on a node:http plane: a connection whose first request
 * line carries a token method node:http does not know is served by the engine's own HTTP/1 parser
 * (the imposters' transport) instead; every other connection goes to node:http untouched, so its
 * answers are unchanged. The check costs one read per connection, nothing per request. Call before
 * acceptH2c, which then hands this its HTTP/1 connections.
 */
export function acceptAnyMethod(server: Server, options: AnyMethodOptions): void {
  const http1 = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const own = new Set<Socket>();
  // The imposters' connection limits, so the engine's parser bounds these connections as node:http bounds the rest.
  const sweep = new DeadlineSweep(DEFAULT_TIMEOUTS);
  server.on('connection', (socket: Socket) => {
    // Until node:http or the engine's parser owns the socket, its errors (a client's RST) are ours.
    const onError = (): void => {
      socket.destroy();
    };
    socket.on('error', onError);
    const onSilent = (): void => {
      socket.destroy();
    };
    socket.setTimeout(server.headersTimeout || options.idleMs, onSilent);
    let seen: Buffer | null = null;
    const onData = (chunk: Buffer): void => {
      const bytes = seen === null ? chunk : Buffer.concat([seen, chunk]);
      const space = bytes.indexOf(0x20);
      // A line end before any space is no request line node could take either: node answers it.
      if (space === -1 && bytes.length <= LONGEST_METHOD && bytes.indexOf(0x0a) === -1 && bytes.indexOf(0x0d) === -1) {
        seen = bytes;
        return;
      }
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('timeout', onSilent);
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(bytes);
      const method = space === -1 ? '' : bytes.toString('latin1', 0, space);
      if (TOKEN.test(method) && !NODE_METHODS.has(method)) {
        own.add(socket);
        socket.on('close', () => own.delete(socket));
        new Http1Connection(socket, socket, {
          handler: options.handler,
          maxBodyBytes: options.maxBodyBytes,
          timeouts: DEFAULT_TIMEOUTS,
          sweep,
          anyMethod: true,
        });
      } else {
        for (const listener of http1) listener.call(server, socket);
      }
      socket.resume();
    };
    socket.on('data', onData);
  });
  // closeAllConnections covers only the connections node:http parses.
  const closeOthers = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeOthers();
    sweep.stop();
    for (const socket of own) socket.destroy();
  };
}

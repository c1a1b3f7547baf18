import type { IncomingMessage, ServerResponse } from 'node:http';
import http2, { type Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import type { ImposterManager } from '../engine/manager/index.js';
import type { WireRequest } from '../engine/model/index.js';
import type { OutgoingHeaders, ResponseSink } from '../engine/transport/index.js';

/** Adapts a node:http response to the engine's sink, so the gateway runs the imposter's own code path. */
function sinkFor(response: ServerResponse): ResponseSink {
  const socket = response.socket as Socket | null;
  return {
    protocol: 'http1',
    send(statusCode: number, headers: OutgoingHeaders, body: Buffer) {
      const flat: string[] = [];
      for (const [name, value] of headers) flat.push(name, value);
      response.writeHead(statusCode, flat);
      response.end(body);
    },
    reset() {
      if (socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket?.destroy();
    },
    closeEmpty() {
      socket?.destroy();
    },
    writeRawAndClose(bytes: Buffer) {
      socket?.end(bytes);
    },
  };
}

/**
 * Over h2c the response is node:http2's compat object: the stream, not the connection, is what a fault
 * ends (as on an imposter's own HTTP/2 port), and raw bytes cannot be written beneath the framing.
 */
function h2SinkFor(response: ServerResponse): ResponseSink {
  const stream = (response as unknown as Http2ServerResponse).stream;
  return {
    ...sinkFor(response),
    protocol: 'h2',
    closeEmpty() {
      stream.close(http2.constants.NGHTTP2_NO_ERROR);
    },
    writeRawAndClose() {
      stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    },
  };
}

function httpVersionOf(request: IncomingMessage): WireRequest['httpVersion'] {
  return request.httpVersion === '1.0' ? '1.0' : request.httpVersion === '2.0' ? '2.0' : '1.1';
}

/** An HTTP/2 request's raw headers as an imposter port sees them: no pseudo-headers, `host` from `:authority`. */
function http1HeadersOf(request: IncomingMessage): string[] {
  const out: string[] = [];
  const raw = request.rawHeaders;
  for (let k = 0; k < raw.length; k += 2) {
    if (raw[k].charCodeAt(0) !== 0x3a) out.push(raw[k], raw[k + 1]);
  }
  const authority = request.headers[':authority'];
  if (request.headers.host === undefined && typeof authority === 'string') out.unshift('host', authority);
  return out;
}

const GATEWAY = /^\/__svc\/(\d+)(?:[/?#]|$)/;

/** The imposter port and rewritten URI of a gateway request target `/__svc/{port}/<path>`; undefined for any other target. */
export function gatewayTarget(url: string): { port: number; url: string } | undefined {
  const match = GATEWAY.exec(url);
  if (match === null) return undefined;
  return { port: Number(match[1]), url: '/' + url.replace(/^\/__svc\/\d+\/?/, '') };
}

/** A gateway request read by the engine's own parser (any method): the imposter answers on the same sink. */
export function dispatchWireGateway(manager: ImposterManager, port: number, wire: WireRequest, sink: ResponseSink): boolean {
  const imposter = manager.get(port);
  if (!imposter) return false;
  imposter.handle(wire, sink);
  return true;
}

/**
 * `ANY /__svc/{port}/<path>` (docs/imposters.md): dispatches to the imposter with the URI rewritten;
 * returns false when no imposter listens on that port.
 */
export function dispatchGateway(
  manager: ImposterManager,
  port: number,
  rest: string,
  request: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
): boolean {
  const imposter = manager.get(port);
  if (!imposter) return false;
  const wire: WireRequest = {
    method: request.method ?? 'GET',
    url: '/' + rest,
    httpVersion: httpVersionOf(request),
    rawHeaders: request.httpVersionMajor === 2 ? http1HeadersOf(request) : request.rawHeaders,
    body,
    remoteAddress: request.socket.remoteAddress ?? '',
    remotePort: request.socket.remotePort ?? 0,
  };
  imposter.handle(wire, request.httpVersionMajor === 2 ? h2SinkFor(response) : sinkFor(response));
  return true;
}

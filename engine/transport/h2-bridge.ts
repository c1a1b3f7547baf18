import http2, { type IncomingHttpHeaders, type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { errorBody, errorText, statusOf, type ErrorSlug, type WireRequest } from '../model/index.js';
import type { BodyBudget } from './body-budget.js';
import type { ConnectionTimeouts, OutgoingHeaders, RequestHandler, ResponseSink } from './contract.js';
import type { DeadlineSweep } from './deadline-sweep.js';
import { HTTP2_SERVER_OPTIONS, Http2SessionGuard, MAX_SESSION_ANSWER_BYTES, serveHttp2 } from './h2-session-guard.js';
import { CONNECTION_SPECIFIC_HEADERS } from './http2-headers.js';

/** Per-socket facts a stream needs; stored on the socket because `session.socket` is a proxy to it. */
interface SocketInfo {
  /** The socket HTTP/2 runs on (plain TCP or TLS). */
  socket: Socket;
  /** The TCP socket beneath it, where RST is sent. */
  raw: Socket;
  remoteAddress: string;
  remotePort: number;
}

const INFO = Symbol('svc.h2.socketInfo');
type TaggedSocket = Socket & { [INFO]?: SocketInfo };

const { NGHTTP2_NO_ERROR } = http2.constants;

function toHttp2Headers(statusCode: number, headers: OutgoingHeaders, bodyLength: number): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { ':status': statusCode };
  let hasLength = false;
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    // Connection-specific fields are dropped instead of failing the response.
    if (CONNECTION_SPECIFIC_HEADERS.has(lower) || (lower === 'te' && value.toLowerCase() !== 'trailers')) continue;
    if (lower === 'content-length') hasLength = true;
    const previous = out[lower];
    if (previous === undefined) out[lower] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else out[lower] = [String(previous), value];
  }
  const bodyless = statusCode === 204 || statusCode === 304 || statusCode < 200;
  if (!hasLength && !bodyless) out['content-length'] = bodyLength;
  return out;
}

class H2Sink implements ResponseSink {
  readonly protocol = 'h2';
  private done = false;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly info: SocketInfo,
    private readonly head: boolean,
  ) {}

  send(statusCode: number, headers: OutgoingHeaders, body: Buffer): void {
    // headersSent: the session guard answered 408 while the request was still arriving.
    if (this.done || this.stream.destroyed || this.stream.headersSent) return;
    this.done = true;
    if (!(Http2SessionGuard.of(this.stream.session)?.reserveAnswer(this.stream, body.length) ?? true)) {
      const envelope = errorBody(
        'response_buffer_full',
        `Answers not yet read on this HTTP/2 session exceed ${MAX_SESSION_ANSWER_BYTES} bytes; read them or retry later`,
      );
      this.respond({ ':status': 503, 'content-type': 'application/json', 'content-length': envelope.length }, envelope);
      return;
    }
    try {
      this.respond(toHttp2Headers(statusCode, headers, body.length), body);
    } catch (error) {
      // Node validates header names/values in respond(); an illegal one is the imposter's 500.
      const envelope = errorBody('invalid_response', errorText(error));
      this.respond({ ':status': 500, 'content-type': 'application/json', 'content-length': envelope.length }, envelope);
    }
  }

  fail(error: unknown): void {
    if (this.done || this.stream.destroyed || this.stream.headersSent) return;
    this.done = true;
    const envelope = errorBody('internal_error', errorText(error));
    this.respond({ ':status': 500, 'content-type': 'application/json', 'content-length': envelope.length }, envelope);
  }

  reset(): void {
    this.done = true;
    this.info.raw.resetAndDestroy();
  }

  closeEmpty(): void {
    this.done = true;
    // Only this stream ends (RST_STREAM, no response); other streams of the session carry on.
    this.stream.close(NGHTTP2_NO_ERROR);
  }

  writeRawAndClose(bytes: Buffer): void {
    this.done = true;
    this.info.socket.end(bytes);
  }

  private respond(headers: OutgoingHttpHeaders, body: Buffer): void {
    const status = headers[':status'] as number;
    const noBody = this.head || status === 204 || status === 304 || status < 200 || body.length === 0;
    this.stream.respond(headers, { endStream: noBody });
    if (!noBody) this.stream.end(body);
  }
}

/** HTTP/2 over sockets the listener has already accepted (h2c after a preface sniff, or TLS with ALPN h2). */
export class H2Bridge {
  /** Made by the first HTTP/2 connection: most imposters never see one, and an idle Http2Server costs kilobytes. */
  private server: http2.Http2Server | undefined;

  constructor(
    private readonly handler: RequestHandler,
    private readonly maxBodyBytes: number,
    private readonly timeouts: ConnectionTimeouts,
    private readonly sweep: DeadlineSweep,
    private readonly bodyBudget?: BodyBudget,
  ) {}

  private http2Server(): http2.Http2Server {
    if (this.server) return this.server;
    const server = http2.createServer(HTTP2_SERVER_OPTIONS);
    server.on('stream', (stream, headers, flags, rawHeaders?: string[]) => this.onStream(stream, headers, flags, rawHeaders ?? []));
    // Session and stream failures concern one peer only.
    server.on('sessionError', () => {});
    this.server = server;
    return server;
  }

  /** Hands `socket` (with any sniffed bytes already unshifted) to the HTTP/2 server. */
  adopt(socket: Socket, raw: Socket): void {
    (socket as TaggedSocket)[INFO] = {
      socket,
      raw,
      remoteAddress: raw.remoteAddress ?? '',
      remotePort: raw.remotePort ?? 0,
    };
    serveHttp2(this.http2Server(), socket, raw, this.timeouts, this.sweep);
  }

  private onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]): void {
    stream.on('error', () => {});
    const info = (stream.session?.socket as TaggedSocket | undefined)?.[INFO];
    if (info === undefined) {
      stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      return;
    }
    const method = String(headers[':method']);
    const request: WireRequest = {
      method,
      url: String(headers[':path'] ?? headers[':authority'] ?? ''),
      httpVersion: '2.0',
      rawHeaders: plainHeaders(rawHeaders, headers[':authority']),
      body: Buffer.alloc(0),
      remoteAddress: info.remoteAddress,
      remotePort: info.remotePort,
    };
    const sink = new H2Sink(stream, info, method === 'HEAD');
    if ((flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0) {
      this.dispatch(request, sink);
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    let refused = false;
    const budget = this.bodyBudget;
    // Bytes taken from the shared budget, given back once the body is handed over or the stream ends.
    let reserved = 0;
    const release = (): void => {
      budget?.release(reserved);
      reserved = 0;
    };
    const refuse = (type: ErrorSlug, message: string): void => {
      refused = true;
      stream.off('data', onData);
      release();
      chunks.length = 0;
      // The session guard answered 408 already (the request timed out while its body arrived): that answer
      // stands, the rest of the body is dropped (a second respond() throws, from a 'data' listener).
      if (stream.headersSent || stream.destroyed) return;
      const envelope = errorBody(type, message);
      stream.respond({ ':status': statusOf(type), 'content-type': 'application/json', 'content-length': envelope.length });
      // After the complete answer, RST_STREAM(NO_ERROR) tells the client to stop sending (RFC 9113 §8.1).
      stream.end(envelope, () => stream.close(NGHTTP2_NO_ERROR));
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > this.maxBodyBytes) {
        refuse('payload_too_large', `Request body exceeds the limit of ${this.maxBodyBytes} bytes`);
        return;
      }
      if (budget !== undefined) {
        if (!budget.reserve(chunk.length)) {
          refuse('request_buffer_full', `Request bodies being received exceed the server-wide limit of ${budget.limitBytes} bytes; retry later`);
          return;
        }
        reserved += chunk.length;
      }
      chunks.push(chunk);
    };
    stream.on('data', onData);
    stream.on('close', release);
    stream.on('end', () => {
      if (refused || stream.headersSent) return;
      release();
      request.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
      this.dispatch(request, sink);
    });
  }

  private dispatch(request: WireRequest, sink: H2Sink): void {
    try {
      const result: unknown = this.handler(request, sink);
      if (result instanceof Promise) result.catch((error: unknown) => sink.fail(error));
    } catch (error) {
      sink.fail(error);
    }
  }
}

/** Raw header list without pseudo-headers; `host` synthesised from `:authority` when absent. */
function plainHeaders(rawHeaders: string[], authority: string | string[] | undefined): string[] {
  const out: string[] = [];
  let hasHost = false;
  for (let k = 0; k < rawHeaders.length; k += 2) {
    const name = rawHeaders[k];
    if (name.charCodeAt(0) === 0x3a) continue;
    if (name === 'host') hasHost = true;
    out.push(name, rawHeaders[k + 1]);
  }
  if (!hasHost && typeof authority === 'string') out.unshift('host', authority);
  return out;
}

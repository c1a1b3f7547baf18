import type { WireRequest } from '../model/index.js';
import type { BodyBudget } from './body-budget.js';

/** Ordered response header list; a name may repeat (one line per value). */
export type OutgoingHeaders = Array<[string, string]>;

/** How the engine answers one request; implemented per connection by HTTP/1 and HTTP/2 transports. */
export interface ResponseSink {
  readonly protocol: 'http1' | 'h2';
  /**
   * Write a complete response. HTTP/1 frames it like node:http (so like mountebank): a given
   * Content-Length is kept, otherwise the body goes chunked (HTTP/1.1) or ends with the connection
   * (HTTP/1.0); closes the connection afterwards when a `Connection: close` header is present
   * (mountebank's default) or the request was HTTP/1.0 without keep-alive.
   * The HTTP/1 writer caches the encoded form of `headers` per array object: reuse one array for a
   * static answer, and never mutate an array after passing it here.
   */
  send(statusCode: number, headers: OutgoingHeaders, body: Buffer): void;
  /** Real TCP RST (beneath TLS on https). */
  reset(): void;
  /** Close with no bytes written (FIN). */
  closeEmpty(): void;
  /** Write bytes verbatim on the raw socket (beneath TLS framing is not possible: TLS-encrypted) then close. */
  writeRawAndClose(bytes: Buffer): void;
}

export type RequestHandler = (request: WireRequest, sink: ResponseSink) => void;

export interface ListenerOptions {
  protocol: 'http' | 'https';
  port: number;
  host?: string;
  /**
   * Accept on this already-listening socket instead of binding `port`/`host` (an engine thread of the
   * per-core runtime, on its own dup of the socket the main thread bound); closing the listener closes it.
   */
  fd?: number;
  /** PEM; a default self-signed pair is used when omitted on https. */
  key?: string;
  cert?: string;
  mutualAuth?: boolean;
  /** With mutualAuth: refuse client certificates not signed by `ca` (mountebank's `rejectUnauthorized`). */
  rejectUnauthorized?: boolean;
  /** PEM(s) trusted for client certificates. */
  ca?: string | string[];
  /** OpenSSL cipher list. */
  ciphers?: string;
  /** false: HTTP/1 only (no h2c sniff, ALPN offers only http/1.1). */
  http2: boolean;
  /**
   * With `http2`, asked for each new connection: false serves it HTTP/1 only (an imposter whose stubs
   * came to use a TCP fault after it started).
   */
  http2Allowed?: () => boolean;
  /** Request body cap in bytes; larger bodies are answered 413. */
  maxBodyBytes: number;
  /** Shared cap on request-body bytes buffered at once (503 beyond it); none when omitted. */
  bodyBudget?: BodyBudget;
  /** Connection timeouts (mountebank's node:http defaults when omitted). */
  timeouts?: ConnectionTimeouts;
  /** Accept-loop events for metrics (docs/metrics-and-events.md); called synchronously, must be cheap and never throw. */
  events?: ListenerEvents;
  /** `--localOnly` / `--ipWhitelist`: a connection it refuses is destroyed on accept. */
  allowConnection?: (remoteAddress: string | undefined) => boolean;
}

/**
 * How long a connection may take, in ms, as node:http (so mountebank's imposters) bounds it; 0 turns
 * one off. Expiry closes the connection, with a 408 when a request had started.
 */
export interface ConnectionTimeouts {
  /** Idle time after the last answer before the next request starts. */
  keepAliveMs: number;
  /** From a request's first byte (or the connection's start) to the end of its head. */
  headersMs: number;
  /** From a request's first byte to the end of its body. */
  requestMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<ConnectionTimeouts> = { keepAliveMs: 5000, headersMs: 60_000, requestMs: 300_000 };

export interface ListenerEvents {
  /** A TCP connection was accepted; `slot` is the engine thread that accepted it (per-core runtime; 0 or absent: the main thread). */
  accepted(slot?: number): void;
  /** accept() failed (the server's 'error' after it is listening: EMFILE, ECONNABORTED, EBADF...). */
  acceptFailed(error: Error): void;
}

export interface Listener {
  readonly port: number;
  /** The listening socket's descriptor (what the per-core runtime duplicates for its engine threads). */
  readonly fd: number;
  /** Resolves once the port is unbound and every connection (keep-alive included) is closed. */
  close(): Promise<void>;
}

import http2, { type Http2Server, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { errorBody } from '../model/index.js';
import type { ConnectionTimeouts } from './contract.js';
import { LINGER_MS, type DeadlineSweep, type Expiring } from './deadline-sweep.js';

const { NGHTTP2_CANCEL, NGHTTP2_NO_ERROR } = http2.constants;

/** Streams one session may have open at once (advertised in SETTINGS; nghttp2 refuses more with RST_STREAM). */
export const MAX_CONCURRENT_STREAMS = 256;
/** Answer bytes one session may hold unsent before further answers are refused (the first always goes). */
export const MAX_SESSION_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * node:http2 server options for every plane: a bounded stream count (node advertises 2^32-1), nghttp2's
 * own buffering per session (MB), and a session that keeps opening refused streams is torn down.
 */
export const HTTP2_SERVER_OPTIONS = {
  settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS },
  maxSessionMemory: 16,
  maxSessionRejectedStreams: 100,
} as const;

/** What the guard knows of one open stream. */
interface StreamClock {
  readonly openedAt: number;
  /** Answer bytes reserved by this stream (released when it closes). */
  answerBytes: number;
  /** `bufferSize` when last seen with unsent bytes; -1 when it had none. */
  pending: number;
  /** When the stream last sent something (its unsent bytes went down) or started waiting to. */
  pendingSince: number;
}

const GUARDS = new WeakMap<Http2Session, Http2SessionGuard>();

/**
 * Bounds one server HTTP/2 session in time as the HTTP/1 connection is bounded, and closes it when the
 * client half-closes (node:http2 does neither on an allowHalfOpen socket):
 * - no stream open: the head timeout before the first stream, then the keep-alive timeout since the last
 *   stream closed, then GOAWAY;
 * - a stream whose request has not fully arrived: the request timeout from its HEADERS, then 408;
 * - a stream whose answer is not being read (unsent bytes not going down, e.g. a peer that keeps its
 *   flow-control window shut): the keep-alive timeout, then the session is cut (as HTTP/1 cuts a
 *   connection that has been handed its answers and stays idle);
 * - a stream waiting for its handler: none (the handler's time is not the client's fault);
 * - the client's FIN: streams still receiving are cancelled, the session closes once the rest are answered.
 * After a graceful close the peer has LINGER_MS to close its side. While streams are open the guard
 * looks at them once per sweep interval (stream state changes have no event node exposes).
 */
export class Http2SessionGuard implements Expiring {
  deadline = 0;
  private readonly streams = new Map<ServerHttp2Stream, StreamClock>();
  private idleSince = Date.now();
  private served = false;
  private peerEnded = false;
  private closing = false;
  /** When a closing session's socket is destroyed whatever the peer does (0: not yet set). */
  private lingerUntil = 0;
  private answerBytes = 0;
  private released = false;

  constructor(
    private readonly session: Http2Session,
    socket: Socket,
    private readonly raw: Socket,
    private readonly timeouts: ConnectionTimeouts,
    private readonly sweep: DeadlineSweep,
  ) {
    GUARDS.set(session, this);
    // Before the server's own listener, which may answer the stream synchronously.
    session.prependListener('stream', (stream: ServerHttp2Stream) => this.opened(stream));
    session.once('close', () => this.release());
    socket.once('end', () => {
      this.peerEnded = true;
      this.check(Date.now());
    });
    // Whatever closes the socket (RST, a cut, node's own teardown) frees the session's bookkeeping.
    raw.once('close', () => this.release());
    sweep.add(this);
    this.schedule(Date.now());
  }

  /** The guard of `session`, when it is guarded. */
  static of(session: Http2Session | undefined): Http2SessionGuard | undefined {
    return session === undefined ? undefined : GUARDS.get(session);
  }

  /**
   * Takes `bytes` of unsent answer for `stream` from the session's allowance; false when they do not fit
   * (the session already holds other unsent answers and this one would pass MAX_SESSION_ANSWER_BYTES).
   */
  reserveAnswer(stream: ServerHttp2Stream, bytes: number): boolean {
    const clock = this.streams.get(stream);
    if (clock === undefined) return true;
    if (this.answerBytes > 0 && this.answerBytes + bytes > MAX_SESSION_ANSWER_BYTES) return false;
    clock.answerBytes += bytes;
    this.answerBytes += bytes;
    return true;
  }

  expire(): void {
    this.check(Date.now());
  }

  private opened(stream: ServerHttp2Stream): void {
    this.served = true;
    const now = Date.now();
    this.streams.set(stream, { openedAt: now, answerBytes: 0, pending: -1, pendingSince: now });
    stream.once('close', () => this.closed(stream));
    this.schedule(now);
  }

  private closed(stream: ServerHttp2Stream): void {
    const clock = this.streams.get(stream);
    if (clock === undefined) return;
    this.streams.delete(stream);
    this.answerBytes -= clock.answerBytes;
    const now = Date.now();
    this.idleSince = now;
    if (this.closing) this.check(now);
    else this.schedule(now);
  }

  /** Acts on whatever is due, then sets the next deadline. */
  private check(now: number): void {
    if (this.released) return;
    if (this.lingerUntil !== 0 && now >= this.lingerUntil) {
      this.cut();
      return;
    }
    const { requestMs, keepAliveMs } = this.timeouts;
    // A stream waiting for its handler (or for the rest of its request) keeps a closing session open.
    let waiting = false;
    for (const [stream, clock] of this.streams) {
      if (stream.destroyed) continue;
      if (!stream.headersSent) {
        if (stream.state.remoteClose !== 1) {
          if (this.peerEnded) {
            // Its body can no longer arrive.
            stream.close(NGHTTP2_CANCEL);
            continue;
          }
          if (requestMs > 0 && now - clock.openedAt >= requestMs) {
            answerTimeout(stream);
            continue;
          }
        }
        waiting = true;
        continue;
      }
      const unsent = stream.bufferSize;
      if (unsent === 0) {
        clock.pending = -1;
        continue;
      }
      if (clock.pending < 0 || unsent < clock.pending) clock.pendingSince = now;
      clock.pending = unsent;
      if (keepAliveMs > 0 && now - clock.pendingSince >= keepAliveMs) {
        this.cut();
        return;
      }
    }
    if (!this.closing && (this.peerEnded || this.session.closed || this.session.destroyed)) this.close();
    else if (!this.closing && this.streams.size === 0) {
      const limit = this.idleLimit();
      if (limit > 0 && now >= this.idleSince + limit) this.close();
    }
    if (this.closing && !waiting && this.lingerUntil === 0) this.lingerUntil = now + LINGER_MS;
    this.schedule(now);
  }

  private idleLimit(): number {
    return this.served ? this.timeouts.keepAliveMs : this.timeouts.headersMs;
  }

  private schedule(now: number): void {
    if (this.released) return;
    let next = this.streams.size > 0 ? now + this.sweep.intervalMs : 0;
    if (!this.closing && this.streams.size === 0) {
      const limit = this.idleLimit();
      next = limit > 0 ? this.idleSince + limit : 0;
    }
    if (this.lingerUntil !== 0 && (next === 0 || this.lingerUntil < next)) next = this.lingerUntil;
    this.deadline = next;
  }

  /** GOAWAY; node ends the socket once the open streams are done. */
  private close(): void {
    this.closing = true;
    if (!this.session.closed && !this.session.destroyed) this.session.close();
  }

  private cut(): void {
    this.session.destroy();
    this.raw.destroy();
    this.release();
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.sweep.delete(this);
    this.streams.clear();
    this.answerBytes = 0;
  }
}

/** 408 on a stream whose request did not arrive in time; the session carries on. */
function answerTimeout(stream: ServerHttp2Stream): void {
  const body = errorBody('request_timeout', 'Request not received in time');
  try {
    stream.respond({ ':status': 408, 'content-type': 'application/json', 'content-length': body.length });
    stream.end(body, () => stream.close(NGHTTP2_NO_ERROR));
  } catch {
    stream.close(NGHTTP2_CANCEL);
  }
}

/**
 * Hands `socket` (with any sniffed bytes already unshifted) to `server` and guards the session it
 * makes. `raw` is the TCP socket beneath (the same one on plain ports).
 */
export function serveHttp2(server: Http2Server, socket: Socket, raw: Socket, timeouts: ConnectionTimeouts, sweep: DeadlineSweep): void {
  let session: Http2Session | undefined;
  const grab = (made: Http2Session): void => {
    session = made;
  };
  // node:http2 makes the session synchronously inside its 'connection' listener.
  server.prependOnceListener('session', grab);
  server.emit('connection', socket);
  server.off('session', grab);
  if (session !== undefined) new Http2SessionGuard(session, socket, raw, timeouts, sweep);
}

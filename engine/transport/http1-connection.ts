import type { Socket } from 'node:net';
import { errorBody, errorText, statusOf, type WireRequest } from '../model/index.js';
import type { ConnectionTimeouts, OutgoingHeaders, RequestHandler, ResponseSink } from './contract.js';
import type { BodyBudget } from './body-budget.js';
import { LINGER_MS, type DeadlineSweep, type Expiring } from './deadline-sweep.js';
import { JSON_HEADERS } from './envelope.js';
import { Http1Parser, type ParseFailure, type ParserEvents, type RequestHead } from './http1-parser.js';
import { Preface, prefaceVerdict } from './preface-sniff.js';
import { InvalidResponseError, serializeResponse, type ResponseContext, type SerializedResponse } from './http1-writer.js';

export interface ConnectionOptions {
  handler: RequestHandler;
  maxBodyBytes: number;
  timeouts: ConnectionTimeouts;
  sweep: DeadlineSweep;
  bodyBudget?: BodyBudget;
  /** Any token method, not only node's list: the admin gateway (docs/imposters.md "any method"). */
  anyMethod?: boolean;
  /**
   * Plain ports with HTTP/2: a connection whose first bytes are the HTTP/2 preface is handed here
   * (paused, the bytes unshifted) when the connection was made with `sniffHttp2` set.
   */
  adoptHttp2?: (socket: Socket) => void;
  /** Every open TCP socket of the listener, for its close(); the connection removes its own on close. */
  sockets?: Set<Socket>;
}

const CONTINUE = Buffer.from('HTTP/1.1 100 Continue\r\n\r\n');
/** Pipelined requests awaiting an answer before the connection stops reading. */
const MAX_IN_FLIGHT = 64;

const enum Fault {
  None,
  Reset,
  Empty,
  Raw,
}

/**
 * One request's answer slot. Answers may arrive in any order; the connection writes them in request
 * order, so a slot holds its bytes (or its fault) until every earlier slot has been written.
 */
class Http1Sink implements ResponseSink, ResponseContext {
  readonly protocol = 'http1';
  ready = false;
  bytes: Buffer | null = null;
  closeAfter = false;
  fault = Fault.None;

  constructor(
    private readonly connection: Http1Connection,
    readonly head: boolean,
    readonly requestClose: boolean,
    readonly http10: boolean,
  ) {}

  send(statusCode: number, headers: OutgoingHeaders, body: Buffer): void {
    if (this.ready) return;
    let serialized: SerializedResponse;
    try {
      serialized = serializeResponse(statusCode, headers, body, this);
    } catch (error) {
      const type = error instanceof InvalidResponseError ? 'invalid_response' : 'internal_error';
      serialized = serializeResponse(500, JSON_HEADERS, errorBody(type, errorText(error)), this);
    }
    this.bytes = serialized.bytes;
    this.closeAfter = serialized.close;
    this.settle();
  }

  reset(): void {
    this.settleFault(Fault.Reset, null);
  }

  closeEmpty(): void {
    this.settleFault(Fault.Empty, null);
  }

  writeRawAndClose(bytes: Buffer): void {
    this.settleFault(Fault.Raw, bytes);
  }

  /** The handler threw or rejected: answer 500 unless it already answered. */
  fail(error: unknown): void {
    if (this.ready) return;
    this.send(500, JSON_HEADERS, errorBody('internal_error', errorText(error)));
  }

  private settleFault(fault: Fault, bytes: Buffer | null): void {
    if (this.ready) return;
    this.fault = fault;
    this.bytes = bytes;
    this.settle();
  }

  private settle(): void {
    this.ready = true;
    this.connection.flush();
  }
}

/**
 * Serves HTTP/1.x on one socket (plain, or the TLS socket over `raw`). One object per connection is
 * the parser's event sink, the sweep's entry and (with `sniffHttp2`) the h2c preface sniffer, so an
 * accept costs few allocations: under mountebank's default `Connection: close` every request is one.
 */
export class Http1Connection implements Expiring, ParserEvents {
  /** When the current phase times out (Date.now() ms, 0: never); read by the listener's sweep. */
  deadline = 0;
  /** When the request being received started; 0 between requests. */
  private requestStartedAt = 0;
  private readonly parser: Http1Parser;
  private readonly queue: Http1Sink[] = [];
  private readonly remoteAddress: string;
  private readonly remotePort: number;
  private closed = false;
  private readEnded = false;
  private paused = false;
  /** Whether the first bytes may still turn out to be the HTTP/2 preface. */
  private sniffing: boolean;
  /** A partial HTTP/2 preface read so far. */
  private sniffed: Buffer | null = null;
  private drainWatched = false;
  private readonly dataListener = (chunk: Buffer): void => this.onData(chunk);
  private readonly endListener = (): void => this.onEnd();

  /**
   * @param socket the byte stream HTTP/1 is spoken on
   * @param raw the TCP socket beneath it (the same object on plain ports), where RST is sent
   * @param sniffHttp2 a plain port's connection that may be h2c (`options.adoptHttp2` takes it then)
   */
  constructor(
    private readonly socket: Socket,
    private readonly raw: Socket,
    private readonly options: ConnectionOptions,
    sniffHttp2 = false,
  ) {
    this.sniffing = sniffHttp2 && options.adoptHttp2 !== undefined;
    this.remoteAddress = raw.remoteAddress ?? '';
    this.remotePort = raw.remotePort ?? 0;
    this.parser = new Http1Parser(options.maxBodyBytes, this, options.bodyBudget, options.anyMethod === true);
    socket.on('data', this.dataListener);
    socket.on('end', this.endListener);
    const onClose = (): void => this.onClose();
    socket.on('error', onClose);
    socket.on('close', onClose);
    options.sweep.add(this);
    // Before its first request a connection gets the head timeout, with no 408 (nothing started); a
    // client silent (or trickling the HTTP/2 preface) past it is closed.
    const headersMs = options.timeouts.headersMs;
    this.deadline = headersMs > 0 ? Date.now() + headersMs : 0;
  }

  onData(chunk: Buffer): void {
    if (this.sniffing) {
      const bytes = this.sniff(chunk);
      if (bytes === null) return;
      chunk = bytes;
    }
    this.parser.execute(chunk);
    this.updateFlow();
    this.updateDeadline();
  }

  /** The sweep saw the deadline pass: 408 for a request under way, else close quietly. */
  expire(): void {
    this.deadline = 0;
    if (this.closed) {
      this.raw.destroy();
      return;
    }
    if (this.requestStartedAt === 0) {
      this.finish(() => this.raw.destroy());
      return;
    }
    this.parser.stop();
    this.onError({ type: 'request_timeout', message: 'Request not received in time' });
  }

  /** Writes every answer whose turn has come; called whenever a slot becomes ready. */
  flush(): void {
    const queue = this.queue;
    while (!this.closed && queue.length > 0 && queue[0].ready) {
      const sink = queue.shift() as Http1Sink;
      switch (sink.fault) {
        case Fault.None:
          this.socket.write(sink.bytes as Buffer);
          if (sink.closeAfter) this.finish(() => this.socket.end());
          break;
        case Fault.Reset:
          this.finish(() => this.raw.resetAndDestroy());
          break;
        case Fault.Empty:
          this.finish(() => this.socket.end());
          break;
        case Fault.Raw:
          this.finish(() => this.socket.end(sink.bytes as Buffer));
          break;
      }
    }
    if (!this.closed && this.readEnded && queue.length === 0) this.finish(() => this.socket.end());
    // Pausing is decided per read in onData; here only a paused connection may need resuming.
    if (this.paused) this.updateFlow();
    this.updateDeadline();
  }

  /** HTTP/1 bytes to parse, or null when they are (part of) the HTTP/2 preface. */
  private sniff(chunk: Buffer): Buffer | null {
    const bytes = this.sniffed === null ? chunk : Buffer.concat([this.sniffed, chunk]);
    const verdict = prefaceVerdict(bytes);
    if (verdict === Preface.Http1) {
      this.sniffing = false;
      this.sniffed = null;
      return bytes;
    }
    if (verdict === Preface.Partial) {
      this.sniffed = bytes;
      return null;
    }
    // HTTP/2: node:http2 reads the socket from here on; this connection keeps only its close listener.
    this.sniffing = false;
    this.sniffed = null;
    this.closed = true;
    this.parser.stop();
    this.options.sweep.delete(this);
    const socket = this.socket;
    socket.off('data', this.dataListener);
    socket.off('end', this.endListener);
    socket.pause();
    socket.unshift(bytes);
    this.options.adoptHttp2!(socket);
    return null;
  }

  /** The parser's: a complete request. */
  onRequest(head: RequestHead, body: Buffer): void {
    // The next request (pipelined bytes already read, or later ones) starts its own clock.
    this.requestStartedAt = 0;
    const sink = new Http1Sink(this, head.method === 'HEAD', !head.keepAlive, head.httpVersion === '1.0');
    this.queue.push(sink);
    const request: WireRequest = {
      method: head.method,
      url: head.url,
      httpVersion: head.httpVersion,
      rawHeaders: head.rawHeaders,
      body,
      remoteAddress: this.remoteAddress,
      remotePort: this.remotePort,
    };
    try {
      const result: unknown = this.options.handler(request, sink);
      // A handler typed as returning void may still be async; its rejection is this request's 500.
      if (result instanceof Promise) result.catch((error: unknown) => sink.fail(error));
    } catch (error) {
      sink.fail(error);
    }
  }

  /** The parser's: `Expect: 100-continue` may be answered. */
  onContinue(): void {
    const sink = new Http1Sink(this, false, false, false);
    sink.bytes = CONTINUE;
    sink.ready = true;
    this.queue.push(sink);
    this.flush();
  }

  /** The parser's: the request is malformed or over a limit. */
  onError(failure: ParseFailure): void {
    const sink = new Http1Sink(this, false, true, false);
    this.queue.push(sink);
    sink.send(statusOf(failure.type), JSON_HEADERS, errorBody(failure.type, failure.message));
  }

  private onEnd(): void {
    if (this.sniffing) {
      // Ended before the first bytes told HTTP/1 from HTTP/2 (a TCP health probe: no byte, or part of
      // the preface): on an allowHalfOpen server nobody else would close it (CLOSE_WAIT forever).
      this.finish(() => this.socket.destroy());
      return;
    }
    const failure = this.parser.endOfInput();
    this.parser.stop();
    this.readEnded = true;
    if (failure !== null && this.socket.writable) this.onError(failure);
    else this.flush();
  }

  private onClose(): void {
    this.options.sweep.delete(this);
    this.options.sockets?.delete(this.raw);
    this.closed = true;
    this.parser.stop();
    this.queue.length = 0;
  }

  /** Stops serving: later answers for this connection are dropped. */
  private finish(close: () => void): void {
    this.closed = true;
    this.parser.stop();
    this.queue.length = 0;
    // A peer that never closes its side after our FIN must not hold the socket (allowHalfOpen).
    this.deadline = Date.now() + LINGER_MS;
    close();
  }

  /**
   * Between requests with every answer written: the keep-alive timeout. Receiving a request: the
   * head timeout, then the request timeout, both from its first byte. Otherwise (answers pending)
   * none: the handler's own time is not the client's fault.
   */
  private updateDeadline(): void {
    if (this.closed) return;
    const timeouts = this.options.timeouts;
    if (!this.parser.idle) {
      if (this.requestStartedAt === 0) this.requestStartedAt = Date.now();
      const headersMs = timeouts.headersMs;
      const requestMs = timeouts.requestMs;
      const limit = this.parser.readingBody || headersMs === 0 ? requestMs : requestMs === 0 ? headersMs : Math.min(headersMs, requestMs);
      this.deadline = limit > 0 ? this.requestStartedAt + limit : 0;
      return;
    }
    this.requestStartedAt = 0;
    const keepAliveMs = timeouts.keepAliveMs;
    this.deadline = this.queue.length === 0 && !this.readEnded && keepAliveMs > 0 ? Date.now() + keepAliveMs : 0;
  }

  /** Stop reading while too many answers are pending or the peer is not reading ours. */
  private updateFlow(): void {
    const busy = !this.closed && (this.queue.length >= MAX_IN_FLIGHT || this.socket.writableNeedDrain);
    if (busy && !this.paused) {
      // Most connections never fill the socket's buffer: the drain listener comes with the first pause.
      if (!this.drainWatched) {
        this.drainWatched = true;
        this.socket.on('drain', () => this.updateFlow());
      }
      this.paused = true;
      this.socket.pause();
    } else if (!busy && this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  }
}

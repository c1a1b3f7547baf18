import type { Socket } from 'node:net';
import { errorBody, errorText, statusOf, type WireRequest } from '../model/index.js';
import type { ConnectionTimeouts, OutgoingHeaders, RequestHandler, ResponseSink } from './contract.js';
import type { BodyBudget } from './body-budget.js';
import { LINGER_MS, type DeadlineSweep, type Expiring } from './deadline-sweep.js';
import { JSON_HEADERS } from './envelope.js';
import { Http1Parser, type ParseFailure, type RequestHead } from './http1-parser.js';
import { InvalidResponseError, serializeResponse, type ResponseContext, type SerializedResponse } from './http1-writer.js';

export interface ConnectionOptions {
  handler: RequestHandler;
  maxBodyBytes: number;
  timeouts: ConnectionTimeouts;
  sweep: DeadlineSweep;
  bodyBudget?: BodyBudget;
  /** Any token method, not only node's list: the admin gateway (SPEC §4.10 "any method"). */
  anyMethod?: boolean;
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

/** Serves HTTP/1.x on one socket (plain, or the TLS socket over `raw`). */
export class Http1Connection implements Expiring {
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

  /**
   * @param socket the byte stream HTTP/1 is spoken on
   * @param raw the TCP socket beneath it (the same object on plain ports), where RST is sent
   */
  constructor(
    private readonly socket: Socket,
    private readonly raw: Socket,
    private readonly options: ConnectionOptions,
  ) {
    this.remoteAddress = raw.remoteAddress ?? '';
    this.remotePort = raw.remotePort ?? 0;
    this.parser = new Http1Parser(
      options.maxBodyBytes,
      {
        onRequest: (head, body) => this.onRequest(head, body),
        onContinue: () => this.onContinue(),
        onError: (failure) => this.answerFailure(failure),
      },
      options.bodyBudget,
      options.anyMethod === true,
    );
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    socket.on('error', () => this.onClose());
    socket.on('close', () => this.onClose());
    socket.on('drain', () => this.updateFlow());
    options.sweep.add(this);
    // Before its first request a connection gets the head timeout, with no 408 (nothing started).
    const headersMs = options.timeouts.headersMs;
    this.deadline = headersMs > 0 ? Date.now() + headersMs : 0;
  }

  onData(chunk: Buffer): void {
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
    this.answerFailure({ type: 'request_timeout', message: 'Request not received in time' });
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

  private onRequest(head: RequestHead, body: Buffer): void {
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

  private onContinue(): void {
    const sink = new Http1Sink(this, false, false, false);
    sink.bytes = CONTINUE;
    sink.ready = true;
    this.queue.push(sink);
    this.flush();
  }

  private answerFailure(failure: ParseFailure): void {
    const sink = new Http1Sink(this, false, true, false);
    this.queue.push(sink);
    sink.send(statusOf(failure.type), JSON_HEADERS, errorBody(failure.type, failure.message));
  }

  private onEnd(): void {
    const failure = this.parser.endOfInput();
    this.parser.stop();
    this.readEnded = true;
    if (failure !== null && this.socket.writable) this.answerFailure(failure);
    else this.flush();
  }

  private onClose(): void {
    this.options.sweep.delete(this);
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
      this.paused = true;
      this.socket.pause();
    } else if (!busy && this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  }
}

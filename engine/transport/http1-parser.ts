/**
 * Incremental HTTP/1.1 request parser working on Buffers. The head is scanned once byte by byte for
 * validation and offsets, decoded once as latin1 (like Node's parser) and sliced, so a request costs
 * one native string conversion however many headers it has.
 *
 * Strictness follows node:http (llhttp), which mountebank's imposters run on, so what a mountebank
 * client sends is accepted and what mountebank refuses is refused with 400: only node's method names
 * (upper case), no bytes above 0x7E in the target, CRLF line ends (a bare LF is refused at once, never
 * waited on), one Content-Length even when repeated identically, Host required on HTTP/1.1. Framing
 * fields in chunked trailers (which node acts on after answering) are refused.
 */
import { METHODS } from 'node:http';

export interface RequestHead {
  method: string;
  url: string;
  httpVersion: '1.0' | '1.1';
  /** Alternating name, value exactly as received. */
  rawHeaders: string[];
  /** Another request may follow on this connection. */
  keepAlive: boolean;
}

/** Why the parser gave up; the connection answers with the slug's catalogue status. */
export interface ParseFailure {
  type: ErrorSlug;
  message: string;
}

import type { ErrorSlug } from '../model/index.js';
import type { BodyBudget } from './body-budget.js';

export interface ParserEvents {
  onRequest(head: RequestHead, body: Buffer): void;
  /** `Expect: 100-continue` was sent and the body is acceptable: the client may now send it. */
  onContinue(): void;
  onError(failure: ParseFailure): void;
}

/** Longest accepted request head (request line + headers), and trailer section. */
export const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE_BYTES = 4096;

const enum State {
  Head,
  Body,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  Stopped,
}

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HT = 0x09;
const CRLF = Buffer.from('\r\n');
const CRLFCRLF = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

function byteTable(accept: (c: number) => boolean): Uint8Array {
  const table = new Uint8Array(256);
  for (let c = 0; c < 256; c++) table[c] = accept(c) ? 1 : 0;
  return table;
}

const TCHAR_EXTRA = "!#$%&'*+-.^_`|~";
/** RFC 9110 token characters (method, header names). */
export const TCHAR = byteTable(
  (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || TCHAR_EXTRA.includes(String.fromCharCode(c)),
);
/** Header value bytes: HTAB, visible ASCII, SP and obs-text; no controls. */
const VALUE_BYTE = byteTable((c) => c === HT || (c >= 0x20 && c !== 0x7f));
/** Request-target bytes: visible ASCII (llhttp refuses obs-text here). */
const TARGET_BYTE = byteTable((c) => c > 0x20 && c < 0x7f);
/** Methods llhttp knows (node's `http.METHODS`); any other token, lower case included, is a 400 there. */
const KNOWN_METHODS = new Set(METHODS);
const HEX_VALUE = new Int8Array(256).fill(-1);
for (let c = 0; c < 16; c++) {
  HEX_VALUE['0123456789abcdef'.charCodeAt(c)] = c;
  HEX_VALUE['0123456789ABCDEF'.charCodeAt(c)] = c;
}

const HTTP_1_ = Buffer.from('HTTP/1.');
const NAME_CONTENT_LENGTH = Buffer.from('content-length');
const NAME_TRANSFER_ENCODING = Buffer.from('transfer-encoding');
const NAME_CONNECTION = Buffer.from('connection');
const NAME_EXPECT = Buffer.from('expect');
const NAME_HOST = Buffer.from('host');

/** Case-insensitive compare of buf[start..] with a lowercase letters-and-dashes name. */
function nameIs(buf: Buffer, start: number, lower: Buffer): boolean {
  for (let k = 0; k < lower.length; k++) {
    if ((buf[start + k] | 0x20) !== lower[k]) return false;
  }
  return true;
}

function startsWithAt(buf: Buffer, at: number, prefix: Buffer): boolean {
  for (let k = 0; k < prefix.length; k++) {
    if (buf[at + k] !== prefix[k]) return false;
  }
  return true;
}

function hasToken(lowerList: string, token: string): boolean {
  for (const part of lowerList.split(',')) {
    if (part.trim() === token) return true;
  }
  return false;
}

function lastToken(lowerList: string): string {
  const comma = lowerList.lastIndexOf(',');
  return (comma === -1 ? lowerList : lowerList.slice(comma + 1)).trim();
}

function bad(message: string): ParseFailure {
  return { type: 'bad_request', message };
}

export class Http1Parser {
  private state = State.Head;
  /** Unconsumed bytes of an incomplete head or line, prepended to the next chunk. */
  private pending: Buffer | null = null;
  /** Where to resume the head-terminator search inside `pending`. */
  private scanFrom = 0;
  /** Bytes of `pending` already checked for bare LFs. */
  private heldFrom = 0;
  private head: RequestHead | null = null;
  // Framing of the current request, set by parseHead.
  private contentLength = -1;
  private chunked = false;
  private expectContinue = false;
  // Content-Length body in progress (allocated only when it spans several chunks).
  private bodyBuf: Buffer | null = null;
  private bodyFilled = 0;
  // Chunked body in progress.
  private chunks: Buffer[] = [];
  private chunkedTotal = 0;
  private chunkRemaining = 0;
  private sawChunkCR = false;
  private trailerBytes = 0;
  /** Bytes of the current body taken from the shared budget. */
  private reserved = 0;

  constructor(
    private readonly maxBodyBytes: number,
    private readonly events: ParserEvents,
    private readonly budget?: BodyBudget,
    private readonly anyMethod = false,
  ) {}

  execute(chunk: Buffer): void {
    let data = chunk;
    if (this.pending !== null) {
      data = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    let off = 0;
    while (off < data.length) {
      switch (this.state) {
        case State.Head:
          off = this.readHead(data, off);
          break;
        case State.Body:
          off = this.readBody(data, off);
          break;
        case State.ChunkSize:
          off = this.readChunkSize(data, off);
          break;
        case State.ChunkData:
          off = this.readChunkData(data, off);
          break;
        case State.ChunkDataEnd:
          off = this.readChunkDataEnd(data, off);
          break;
        case State.Trailers:
          off = this.readTrailer(data, off);
          break;
        case State.Stopped:
          return;
      }
    }
  }

  /** No byte of a next request is held or expected (connection timeouts: between requests). */
  get idle(): boolean {
    return (this.state === State.Head && this.pending === null) || this.state === State.Stopped;
  }

  /** The current request's head is complete and its body is being read. */
  get readingBody(): boolean {
    return this.state !== State.Head && this.state !== State.Stopped;
  }

  /** Ignore all further input (after an error, a final request, or when the connection closes). */
  stop(): void {
    this.state = State.Stopped;
    this.pending = null;
    this.bodyBuf = null;
    this.chunks = [];
    this.releaseBudget();
  }

  private reserve(bytes: number): boolean {
    if (this.budget === undefined) return true;
    if (!this.budget.reserve(bytes)) return false;
    this.reserved += bytes;
    return true;
  }

  private releaseBudget(): void {
    if (this.reserved === 0) return;
    this.budget?.release(this.reserved);
    this.reserved = 0;
  }

  private bufferFull(): ParseFailure {
    return {
      type: 'request_buffer_full',
      message: `Request bodies being received exceed the server-wide limit of ${this.budget?.limitBytes} bytes; retry later`,
    };
  }

  /** The peer finished sending: a failure when it stopped inside a request body. */
  endOfInput(): ParseFailure | null {
    let received: string;
    switch (this.state) {
      case State.Body:
        received = `${this.bodyBuf === null ? 0 : this.bodyFilled} of ${this.contentLength} bytes`;
        break;
      case State.ChunkSize:
      case State.ChunkData:
      case State.ChunkDataEnd:
      case State.Trailers:
        received = `${this.chunkedTotal} bytes of a chunked body`;
        break;
      default:
        return null;
    }
    return {
      type: 'incomplete_body',
      message: `Request body was not read to completion: transmission ended after ${received}`,
    };
  }

  private fail(failure: ParseFailure): number {
    this.stop();
    this.events.onError(failure);
    return Number.MAX_SAFE_INTEGER;
  }

  private hold(data: Buffer, off: number): number {
    this.pending = data.subarray(off);
    return data.length;
  }

  private emit(body: Buffer): void {
    const head = this.head as RequestHead;
    this.head = null;
    this.state = head.keepAlive ? State.Head : State.Stopped;
    this.releaseBudget();
    this.events.onRequest(head, body);
  }

  private readHead(data: Buffer, start: number): number {
    let off = start;
    // RFC 9112 §2.2: tolerate empty lines before a request line (clients that add CRLF after a body);
    // node skips a bare LF there too.
    for (;;) {
      if (data[off] === CR && data[off + 1] === LF) off += 2;
      else if (data[off] === LF) off += 1;
      else break;
    }
    if (off >= data.length) return data.length;
    const end = data.indexOf(CRLFCRLF, Math.max(off, this.scanFrom));
    this.scanFrom = 0;
    if (end !== -1) this.heldFrom = 0;
    if (end === -1) {
      if (data.length - off > MAX_HEAD_BYTES) return this.headTooLarge();
      // Bytes that cannot start a request line (a TLS handshake on a plain port) fail now, as in
      // node's parser, rather than waiting for a blank line that never comes.
      let i = off;
      while (i < data.length && TCHAR[data[i]] === 1) i++;
      if (i < data.length && (i === off || data[i] !== SP)) return this.fail(bad('Malformed request line'));
      // A head with a bare LF would never see its CRLFCRLF: refuse it now (node answers 400 too).
      for (let lf = data.indexOf(LF, Math.max(off, this.heldFrom)); lf !== -1; lf = data.indexOf(LF, lf + 1)) {
        if (data[lf - 1] !== CR) return this.fail(bad('Bare LF in request head'));
      }
      this.scanFrom = Math.max(0, data.length - off - 3);
      this.heldFrom = data.length - off;
      return this.hold(data, off);
    }
    if (end - off > MAX_HEAD_BYTES) return this.headTooLarge();
    const failure = this.parseHead(data, off, end);
    if (failure !== null) return this.fail(failure);
    const next = end + 4;
    if (this.chunked) {
      this.state = State.ChunkSize;
      this.chunks = [];
      this.chunkedTotal = 0;
      if (this.expectContinue) this.events.onContinue();
    } else if (this.contentLength > 0) {
      if (this.contentLength > this.maxBodyBytes) return this.fail(this.tooLarge());
      if (!this.reserve(this.contentLength)) return this.fail(this.bufferFull());
      this.state = State.Body;
      this.bodyBuf = null;
      this.bodyFilled = 0;
      if (this.expectContinue) this.events.onContinue();
    } else {
      this.emit(EMPTY);
    }
    return next;
  }

  private headTooLarge(): number {
    return this.fail({
      type: 'header_too_large',
      message: `Request head exceeds ${MAX_HEAD_BYTES} bytes`,
    });
  }

  private tooLarge(): ParseFailure {
    return {
      type: 'payload_too_large',
      message: `Request body exceeds the limit of ${this.maxBodyBytes} bytes`,
    };
  }

  /** Parses buf[start, end) where end is the index of the blank line's CRLF pair. */
  private parseHead(buf: Buffer, start: number, end: number): ParseFailure | null {
    const text = buf.toString('latin1', start, end + 2);
    // Request line: method SP target SP HTTP/1.x CRLF
    let i = start;
    while (TCHAR[buf[i]] === 1) i++;
    if (i === start || buf[i] !== SP) return bad('Malformed request line');
    const method = text.slice(0, i - start);
    if (!this.anyMethod && !KNOWN_METHODS.has(method)) return bad('Invalid method');
    const targetStart = ++i;
    while (TARGET_BYTE[buf[i]] === 1) i++;
    if (i === targetStart || buf[i] !== SP) return bad('Malformed request line');
    const url = text.slice(targetStart - start, i - start);
    i++;
    if (i + 10 > end + 2 || !startsWithAt(buf, i, HTTP_1_) || buf[i + 8] !== CR || buf[i + 9] !== LF) {
      return bad('Malformed request line or unsupported HTTP version');
    }
    const minor = buf[i + 7];
    if (minor !== 0x30 && minor !== 0x31) return bad('Unsupported HTTP version');
    const http10 = minor === 0x30;
    i += 10;

    const rawHeaders: string[] = [];
    let contentLength = -1;
    let transferEncoding: string | null = null;
    let connectionClose = false;
    let connectionKeepAlive = false;
    let expectContinue = false;
    let hasHost = false;
    const stopAt = end + 2;
    while (i < stopAt) {
      const nameStart = i;
      while (TCHAR[buf[i]] === 1) i++;
      // Also rejects obsolete line folding (a line starting with SP/HTAB).
      if (i === nameStart || buf[i] !== 0x3a) return bad('Malformed header line');
      const nameEnd = i++;
      while (buf[i] === SP || buf[i] === HT) i++;
      const valueStart = i;
      while (VALUE_BYTE[buf[i]] === 1) i++;
      if (buf[i] !== CR || buf[i + 1] !== LF) return bad('Invalid character in header value');
      let valueEnd = i;
      while (valueEnd > valueStart && (buf[valueEnd - 1] === SP || buf[valueEnd - 1] === HT)) valueEnd--;
      i += 2;
      const value = text.slice(valueStart - start, valueEnd - start);
      rawHeaders.push(text.slice(nameStart - start, nameEnd - start), value);

      switch (nameEnd - nameStart) {
        case 14:
          if (nameIs(buf, nameStart, NAME_CONTENT_LENGTH)) {
            const length = parseContentLength(value);
            if (length < 0) return bad('Invalid Content-Length');
            if (contentLength >= 0) return bad('Duplicate Content-Length');
            contentLength = length;
          }
          break;
        case 17:
          if (nameIs(buf, nameStart, NAME_TRANSFER_ENCODING)) transferEncoding = value.toLowerCase();
          break;
        case 10:
          if (nameIs(buf, nameStart, NAME_CONNECTION)) {
            const tokens = value.toLowerCase();
            if (hasToken(tokens, 'close')) connectionClose = true;
            if (hasToken(tokens, 'keep-alive')) connectionKeepAlive = true;
          }
          break;
        case 6:
          if (nameIs(buf, nameStart, NAME_EXPECT) && value.toLowerCase() === '100-continue') expectContinue = true;
          break;
        case 4:
          if (nameIs(buf, nameStart, NAME_HOST)) hasHost = true;
          break;
      }
    }
    if (!hasHost && !http10) return bad('Missing Host header');

    if (transferEncoding !== null) {
      // Both framings at once is the request-smuggling shape; any coding but chunked last leaves the
      // length unknown (RFC 9112 §6.3).
      if (contentLength >= 0) return bad('Both Content-Length and Transfer-Encoding sent');
      if (lastToken(transferEncoding) !== 'chunked') return bad('Unsupported Transfer-Encoding');
    }
    this.contentLength = contentLength;
    this.chunked = transferEncoding !== null;
    this.expectContinue = expectContinue && !http10;
    this.head = {
      method,
      url,
      httpVersion: http10 ? '1.0' : '1.1',
      rawHeaders,
      keepAlive: !connectionClose && (!http10 || connectionKeepAlive),
    };
    return null;
  }

  private readBody(data: Buffer, off: number): number {
    const available = data.length - off;
    if (this.bodyBuf === null) {
      // Whole body in this chunk: hand out a view, no copy.
      if (available >= this.contentLength) {
        const end = off + this.contentLength;
        this.emit(data.subarray(off, end));
        return end;
      }
      this.bodyBuf = Buffer.allocUnsafe(this.contentLength);
      this.bodyFilled = 0;
    }
    const take = Math.min(available, this.contentLength - this.bodyFilled);
    data.copy(this.bodyBuf, this.bodyFilled, off, off + take);
    this.bodyFilled += take;
    if (this.bodyFilled === this.contentLength) {
      const body = this.bodyBuf;
      this.bodyBuf = null;
      this.emit(body);
    }
    return off + take;
  }

  private readChunkSize(data: Buffer, off: number): number {
    const lineEnd = data.indexOf(CRLF, off);
    if (lineEnd === -1) {
      if (data.length - off > MAX_CHUNK_LINE_BYTES) return this.fail(bad('Chunk size line too long'));
      return this.hold(data, off);
    }
    let i = off;
    let size = 0;
    while (i < lineEnd && HEX_VALUE[data[i]] >= 0) {
      size = size * 16 + HEX_VALUE[data[i]];
      i++;
    }
    // Digits, then nothing, a chunk extension, or whitespace before one.
    const after = data[i];
    if (i === off || i - off > 12 || (i < lineEnd && after !== 0x3b && after !== SP && after !== HT)) {
      return this.fail(bad('Malformed chunk size'));
    }
    if (size === 0) {
      this.state = State.Trailers;
      this.trailerBytes = 0;
    } else {
      if (this.chunkedTotal + size > this.maxBodyBytes) return this.fail(this.tooLarge());
      if (!this.reserve(size)) return this.fail(this.bufferFull());
      this.chunkRemaining = size;
      this.state = State.ChunkData;
    }
    return lineEnd + 2;
  }

  private readChunkData(data: Buffer, off: number): number {
    const take = Math.min(data.length - off, this.chunkRemaining);
    this.chunks.push(data.subarray(off, off + take));
    this.chunkedTotal += take;
    this.chunkRemaining -= take;
    if (this.chunkRemaining === 0) {
      this.state = State.ChunkDataEnd;
      this.sawChunkCR = false;
    }
    return off + take;
  }

  private readChunkDataEnd(data: Buffer, off: number): number {
    const expected = this.sawChunkCR ? LF : CR;
    if (data[off] !== expected) return this.fail(bad('Malformed chunk: data not followed by CRLF'));
    if (this.sawChunkCR) this.state = State.ChunkSize;
    else this.sawChunkCR = true;
    return off + 1;
  }

  private readTrailer(data: Buffer, off: number): number {
    const lineEnd = data.indexOf(CRLF, off);
    if (lineEnd === -1) {
      if (this.trailerBytes + data.length - off > MAX_HEAD_BYTES) return this.headTooLarge();
      return this.hold(data, off);
    }
    if (lineEnd === off) {
      const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.chunkedTotal);
      this.chunks = [];
      this.emit(body);
      return off + 2;
    }
    // Trailer fields are validated and then dropped, as Node's server does for `req.headers`.
    let i = off;
    while (TCHAR[data[i]] === 1) i++;
    if (i === off || data[i] !== 0x3a) return this.fail(bad('Malformed trailer field'));
    if (isFramingField(data, off, i)) return this.fail(bad('Framing field in chunked trailers'));
    i++;
    while (i < lineEnd && VALUE_BYTE[data[i]] === 1) i++;
    if (i !== lineEnd) return this.fail(bad('Malformed trailer field'));
    this.trailerBytes += lineEnd + 2 - off;
    if (this.trailerBytes > MAX_HEAD_BYTES) return this.headTooLarge();
    return lineEnd + 2;
  }
}

/** Content-Length, Transfer-Encoding or Host: fields a trailer must not carry (RFC 9110 §6.5.1). */
function isFramingField(buf: Buffer, start: number, end: number): boolean {
  switch (end - start) {
    case 14:
      return nameIs(buf, start, NAME_CONTENT_LENGTH);
    case 17:
      return nameIs(buf, start, NAME_TRANSFER_ENCODING);
    case 4:
      return nameIs(buf, start, NAME_HOST);
    default:
      return false;
  }
}

/** Decimal digits only; -1 when invalid. Values beyond 2^53 are rejected. */
function parseContentLength(value: string): number {
  if (value.length === 0 || value.length > 15) return -1;
  let n = 0;
  for (let k = 0; k < value.length; k++) {
    const d = value.charCodeAt(k) - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

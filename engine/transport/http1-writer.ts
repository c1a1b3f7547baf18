import type { OutgoingHeaders } from './contract.js';
import { TCHAR } from './http1-parser.js';
import { statusLine } from './status-text.js';
import { SvcFailure } from '../model/index.js';

/** The response cannot be put on the wire as given (bad status, illegal header name or value). */
export class InvalidResponseError extends SvcFailure {}

export interface SerializedResponse {
  /** Status line, headers and body in one buffer: one socket write per response. */
  bytes: Buffer;
  /** The connection must be closed once these bytes are written. */
  close: boolean;
}

export interface ResponseContext {
  /** HEAD request: headers (Content-Length included) but no body. */
  readonly head: boolean;
  /** The request asked for the connection to end (Connection: close, or HTTP/1.0 without keep-alive). */
  readonly requestClose: boolean;
  readonly http10: boolean;
}

/** A header list validated and encoded once, plus what the writer must know about it. */
interface HeaderBlock {
  bytes: Buffer;
  hasDate: boolean;
  hasLength: boolean;
  hasConnection: boolean;
  chunked: boolean;
  closeHeader: boolean;
  /**
   * The last complete answer built with this block for a plain keep-alive/close HTTP/1.1 request:
   * a static stub answers every request with the same status, body and (per second) Date line, so
   * it is served from here without building anything.
   */
  last?: { status: number; body: Buffer; date: Buffer | null; result: SerializedResponse };
}

/**
 * A list's encoded block is kept on the list itself, so a stub answering with the same list object
 * pays validation and encoding once (a list passed to send() must not be mutated afterwards). Not in
 * a WeakMap: a dynamic response brings a fresh list per request, and an entry per request in a
 * WeakMap's table made V8's young-generation collections keep every such request's objects alive
 * and promote them (a 1 ms `wait` stub: 7 ms scavenges against 0.9 ms, --trace-gc).
 */
const BLOCK = Symbol('headerBlock');
type BlockHolder = OutgoingHeaders & { [BLOCK]?: HeaderBlock };
const statusLines: Buffer[] = [];
const LAST_CHUNK = Buffer.from('0\r\n\r\n');
const CHUNK_END_AND_LAST = Buffer.from('\r\n0\r\n\r\n');

let dateLine: Buffer | null = null;
/**
 * `Date:` header line, formatted once and dropped at the next second boundary by an unref'd timer
 * (as node:http does), so a response pays no clock read.
 */
function currentDateLine(): Buffer {
  if (dateLine === null) {
    const now = new Date();
    dateLine = Buffer.from(`Date: ${now.toUTCString()}\r\n`, 'latin1');
    setTimeout(() => {
      dateLine = null;
    }, 1000 - now.getMilliseconds()).unref();
  }
  return dateLine;
}

function statusLineBytes(status: number): Buffer {
  let line = statusLines[status];
  if (line === undefined) {
    line = Buffer.from(statusLine(status), 'latin1');
    statusLines[status] = line;
  }
  return line;
}

function checkName(name: string): void {
  if (name.length === 0) throw new InvalidResponseError('Empty response header name');
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c > 0x7f || TCHAR[c] !== 1) throw new InvalidResponseError(`Invalid response header name '${name}'`);
  }
}

/** Same rule as Node's http: HTAB, visible ASCII, SP and latin1 bytes; no controls. */
function checkValue(name: string, value: string): void {
  for (let k = 0; k < value.length; k++) {
    const c = value.charCodeAt(k);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f || c > 0xff) {
      throw new InvalidResponseError(`Invalid value for response header '${name}'`);
    }
  }
}

function tokenListHasClose(value: string): boolean {
  for (const part of value.toLowerCase().split(',')) {
    if (part.trim() === 'close') return true;
  }
  return false;
}

function buildBlock(headers: OutgoingHeaders): HeaderBlock {
  const block: HeaderBlock = {
    bytes: Buffer.alloc(0),
    hasDate: false,
    hasLength: false,
    hasConnection: false,
    chunked: false,
    closeHeader: false,
  };
  let text = '';
  for (const [name, value] of headers) {
    checkName(name);
    checkValue(name, value);
    // Only names of these lengths can be ones the writer manages; skip lowercasing the rest.
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === 'date') block.hasDate = true;
        break;
      case 10:
        if (name.toLowerCase() === 'connection') {
          block.hasConnection = true;
          if (tokenListHasClose(value)) block.closeHeader = true;
        }
        break;
      case 14:
        if (name.toLowerCase() === 'content-length') block.hasLength = true;
        break;
      case 17:
        if (name.toLowerCase() === 'transfer-encoding') block.chunked = true;
        break;
    }
    text += name + ': ' + value + '\r\n';
  }
  block.bytes = Buffer.from(text, 'latin1');
  return block;
}

export function serializeResponse(status: number, headers: OutgoingHeaders, body: Buffer, ctx: ResponseContext): SerializedResponse {
  if (!Number.isInteger(status) || status < 100 || status > 999) {
    throw new InvalidResponseError(`Invalid status code ${status}`);
  }
  let block = (headers as BlockHolder)[BLOCK];
  if (block === undefined) {
    block = buildBlock(headers);
    // A frozen list (a caller's constant) is encoded per response.
    if (Object.isExtensible(headers)) (headers as BlockHolder)[BLOCK] = block;
  }
  const plain = !ctx.head && !ctx.requestClose && !ctx.http10;
  const date = block.hasDate ? null : currentDateLine();
  const last = block.last;
  if (plain && last !== undefined && last.status === status && last.body === body && last.date === date) return last.result;
  // RFC 9110 §6.4.1: 1xx, 204 and 304 never carry content; HEAD gets the head only.
  const bodyless = status < 200 || status === 204 || status === 304;
  const payload = bodyless || ctx.head ? null : body;
  // Framing when the headers give none, as node:http (so mountebank) does: chunked for HTTP/1.1, the
  // connection's end for HTTP/1.0, nothing when no body follows.
  const chunked = block.chunked || (!block.hasLength && payload !== null && !ctx.http10);
  const closeDelimited = !block.hasLength && !chunked && payload !== null;
  const close = block.closeHeader || ctx.requestClose || closeDelimited;

  // The variable tail of the head: connection handling, framing, blank line.
  let tail = '';
  if (!block.hasConnection) {
    if (close) tail += 'Connection: close\r\n';
    else if (ctx.http10) tail += 'Connection: keep-alive\r\n';
  }
  if (chunked && !block.chunked) tail += 'Transfer-Encoding: chunked\r\n';
  tail += '\r\n';
  let trailer: Buffer | null = null;
  if (payload !== null && chunked) {
    // The whole body as one chunk, then the last-chunk marker.
    if (payload.length > 0) tail += payload.length.toString(16) + '\r\n';
    trailer = payload.length > 0 ? CHUNK_END_AND_LAST : LAST_CHUNK;
  }

  const statusBytes = statusLineBytes(status);
  const bytes = Buffer.allocUnsafe(
    statusBytes.length
      + block.bytes.length
      + (date === null ? 0 : date.length)
      + tail.length
      + (payload === null ? 0 : payload.length)
      + (trailer === null ? 0 : trailer.length),
  );
  bytes.set(statusBytes, 0);
  let at = statusBytes.length;
  bytes.set(block.bytes, at);
  at += block.bytes.length;
  if (date !== null) {
    bytes.set(date, at);
    at += date.length;
  }
  at += bytes.write(tail, at, 'latin1');
  if (payload !== null) {
    bytes.set(payload, at);
    at += payload.length;
  }
  if (trailer !== null) bytes.set(trailer, at);
  const result = { bytes, close };
  if (plain) block.last = { status, body, date, result };
  return result;
}

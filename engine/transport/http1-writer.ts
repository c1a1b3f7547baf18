import type { OutgoingHeaders } from './contract.js';
import { TCHAR } from './http1-parser.js';
import { statusLine } from './status-text.js';

/** The response cannot be put on the wire as given (bad status, illegal header name or value). */
export class InvalidResponseError extends Error {}

export interface SerializedResponse {
  /** Status line, headers and body in one buffer: one socket write per response. */
  bytes: Buffer;
  /** The connection must be closed once these bytes are written. */
  close: boolean;
}

export interface ResponseContext {
  /** HEAD request: headers (Content-Length included) but no body. */
  head: boolean;
  /** The request asked for the connection to end (Connection: close, or HTTP/1.0 without keep-alive). */
  requestClose: boolean;
  http10: boolean;
}

const LAST_CHUNK = '0\r\n\r\n';
const CHUNK_END_AND_LAST = '\r\n0\r\n\r\n';

let dateSecond = -1;
let dateLine = '';
/** `Date:` header line, formatted at most once per second. */
function currentDateLine(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateLine = `Date: ${new Date(now).toUTCString()}\r\n`;
  }
  return dateLine;
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

export function serializeResponse(
  status: number,
  headers: OutgoingHeaders,
  body: Buffer,
  ctx: ResponseContext,
): SerializedResponse {
  if (!Number.isInteger(status) || status < 100 || status > 999) {
    throw new InvalidResponseError(`Invalid status code ${status}`);
  }
  let text = statusLine(status);
  let hasDate = false;
  let hasLength = false;
  let hasConnection = false;
  let chunked = false;
  let closeHeader = false;
  for (let k = 0; k < headers.length; k++) {
    const name = headers[k][0];
    const value = headers[k][1];
    checkName(name);
    checkValue(name, value);
    // Only names of these lengths can be ones the writer manages; skip lowercasing the rest.
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === 'date') hasDate = true;
        break;
      case 10:
        if (name.toLowerCase() === 'connection') {
          hasConnection = true;
          if (tokenListHasClose(value)) closeHeader = true;
        }
        break;
      case 14:
        if (name.toLowerCase() === 'content-length') hasLength = true;
        break;
      case 17:
        if (name.toLowerCase() === 'transfer-encoding') chunked = true;
        break;
    }
    text += name + ': ' + value + '\r\n';
  }
  if (!hasDate) text += currentDateLine();

  const close = closeHeader || ctx.requestClose;
  if (!hasConnection) {
    if (close) text += 'Connection: close\r\n';
    else if (ctx.http10) text += 'Connection: keep-alive\r\n';
  }

  // RFC 9110 §6.4.1: 1xx, 204 and 304 never carry content; HEAD gets the length but not the bytes.
  const bodyless = status < 200 || status === 204 || status === 304;
  if (!bodyless && !hasLength && !chunked) text += 'Content-Length: ' + body.length + '\r\n';
  text += '\r\n';

  const payload = bodyless || ctx.head ? null : body;
  if (payload === null) return { bytes: Buffer.from(text, 'latin1'), close };
  if (chunked) {
    // The whole body as one chunk, then the last-chunk marker.
    const tail = payload.length > 0 ? CHUNK_END_AND_LAST : LAST_CHUNK;
    if (payload.length > 0) text += payload.length.toString(16) + '\r\n';
    const bytes = Buffer.allocUnsafe(text.length + payload.length + tail.length);
    let at = bytes.write(text, 0, 'latin1');
    at += payload.copy(bytes, at);
    bytes.write(tail, at, 'latin1');
    return { bytes, close };
  }
  const bytes = Buffer.allocUnsafe(text.length + payload.length);
  const at = bytes.write(text, 0, 'latin1');
  payload.copy(bytes, at);
  return { bytes, close };
}

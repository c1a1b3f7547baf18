import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Compat } from '../../engine/manager/index.js';
import { errors, mountebankFormOf, type ErrorEntry, type SvcError } from '../../engine/model/index.js';
import type { AdminReply } from './router.js';

/** docs/errors.md: the one door without the envelope, used only when the envelope itself cannot be built. */
const LAST_RESORT = 'Internal Server Error: the error response could not be built\n';

function serialise(body: unknown): string | undefined {
  try {
    return JSON.stringify(body, null, 2);
  } catch {
    // A value JSON cannot write (a cycle, a BigInt, nesting past the stack): the caller answers 500.
    return undefined;
  }
}

/** Chunked replies up to this size are sent as one string (writeText). */
const JOINED_REPLY_BYTES = 16 * 1024;

function writeText(response: ServerResponse, status: number, text: string | Buffer | readonly Uint8Array[], headers: Record<string, string>): void {
  const single = typeof text === 'string' || Buffer.isBuffer(text);
  let length = 0;
  if (single) length = Buffer.byteLength(text);
  else for (const chunk of text) length += chunk.byteLength;
  // Route headers first, as mountebank's express answers (`Location` / `Vary` before `Content-Type`).
  response.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(length) });
  if (single) {
    response.end(text);
    return;
  }
  if (length <= JOINED_REPLY_BYTES) {
    // node:http writes a string body and its head as one string in one write: cheaper than a writev of
    // the head and each chunk for the small replies most admin calls get.
    response.end(Buffer.concat(text, length).toString());
    return;
  }
  // Corked: the chunks leave in one writev, without being copied into one buffer first.
  response.cork();
  for (const chunk of text) response.write(chunk);
  response.end();
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = serialise(body);
  if (text !== undefined) writeText(response, status, text, headers);
  else sendError(response, errors.internal('the response body could not be serialised as JSON'));
}

export interface ErrorReplyOptions {
  headers?: Record<string, string>;
  /** mountebank 2.9.1's error entries have no `type` (docs/errors.md) nor `path`; `--compat mountebank` leaves them out. */
  compat?: Compat;
}

function envelopeOf(err: SvcError, compat: Compat | undefined): { errors: ErrorEntry[] } {
  const envelope = err.envelope();
  if (compat === 'mountebank') {
    envelope.errors = envelope.errors.map((entry) => {
      const { type: _type, path: _path, ...rest } = entry;
      return (mountebankFormOf(entry) as ErrorEntry | undefined) ?? (rest as ErrorEntry);
    });
  }
  return envelope;
}

/**
 * Answers with the error's envelope and never throws: an envelope that cannot be serialised falls
 * back to a plain 500 envelope, then to the last-resort text; a response already started is cut.
 */
export function sendError(response: ServerResponse, err: SvcError, options: ErrorReplyOptions = {}): void {
  const headers = options.headers ?? {};
  try {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const text = serialise(envelopeOf(err, options.compat)) ?? serialise(errors.internal('the error response could not be serialised').envelope());
    if (text !== undefined) {
      writeText(response, err.status, text, headers);
      return;
    }
    response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(LAST_RESORT)) });
    response.end(LAST_RESORT);
  } catch {
    response.destroy();
  }
}

export function reply(response: ServerResponse, result: AdminReply): void {
  if (result.text !== undefined) {
    response.writeHead(result.status, { 'Content-Length': Buffer.byteLength(result.text), ...result.headers });
    response.end(result.text);
    return;
  }
  if (result.json !== undefined) {
    writeText(response, result.status, result.json, result.headers ?? {});
    return;
  }
  if (result.body === undefined) {
    response.writeHead(result.status, result.headers ?? {});
    response.end();
    return;
  }
  sendJson(response, result.status, result.body, result.headers);
}

/**
 * The envelope as a complete raw HTTP/1.1 response, for replies written on the socket before node:http
 * has a request (its `clientError`: bad request line, oversized head). The connection closes after it.
 */
export function rawErrorResponse(err: SvcError): string {
  const text = serialise(err.envelope()) ?? LAST_RESORT;
  return (
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`
  );
}

import type { IncomingMessage } from 'node:http';
import { errors } from '../engine/model/index.js';

/** Largest admin request body read into memory (the imposter ports' default cap, docs/limits.md). */
export const MAX_ADMIN_BODY = 64 * 1024 * 1024;

/** True when the head already announces a body over `limit`: answer 413 without reading it. */
export function declaredTooLarge(request: IncomingMessage, limit: number): boolean {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) && declared > limit;
}

/** The body of a request that has none. */
export const EMPTY_BODY: Buffer = Buffer.alloc(0);

/**
 * An HTTP/1 request whose head announces no body (RFC 9112 §6.3: no Transfer-Encoding, no or a zero
 * Content-Length). An HTTP/2 request can send DATA frames without either, so it is always read.
 */
export function hasNoBody(request: IncomingMessage): boolean {
  if (request.httpVersionMajor !== 1) return false;
  const { headers } = request;
  return headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0');
}

/**
 * The whole body, or a 413 SvcError once more than `limit` bytes arrive (chunked bodies announce no
 * length). Past the limit the rest is drained, not kept, so memory stays bounded until the answer.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      request.off('data', onData);
      request.resume();
      reject(errors.payloadTooLarge(limit));
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
    // A connection cut mid-body ends the wait (the answer has nowhere to go, but nothing stays pending).
    request.on('close', () => {
      if (!request.complete) reject(errors.badRequest('request body not received in full'));
    });
  });
}

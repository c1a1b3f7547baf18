import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorOf, type SvcError } from '../../engine/model/index.js';
import { rawErrorResponse } from './replies.js';

/** The status node:http itself would answer for a parser or timeout error, with a stable `type`. */
function errorFor(err: NodeJS.ErrnoException): SvcError {
  const detail = err.code ?? err.message;
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return errorOf('header_fields_too_large', `Request head too large (${detail})`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errorOf('request_timeout', 'Request not received in time');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errorOf('payload_too_large', `Chunk extensions too large (${detail})`);
    default:
      return errorOf('bad_request', `Malformed HTTP request (${detail})`);
  }
}

/**
 * node:http answers a request it cannot parse (bad request line, oversized head, head timeout) with a
 * bare status line and no body; this answers the same status with the docs/errors.md envelope instead.
 */
export function answerClientErrorsWithEnvelope(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (inFlight) {
      // Bytes after a request still being answered (pipelined garbage): an error reply now would land
      // before that answer and misreport it. The request, if whole, gets its own answer, then the
      // connection closes; a request whose body broke off cannot be answered.
      if (inFlight.headersSent || !inFlight.req.complete) socket.destroy();
      else inFlight.shouldKeepAlive = false;
      return;
    }
    // Closed once written, as node does: the connection's parser state is unusable after the error.
    socket.end(rawErrorResponse(errorFor(err)), () => socket.destroy());
  });
}

import { randomBytes } from 'node:crypto';
import type { ResponseSink } from '../../transport/index.js';

const ALIASES: Record<string, string> = {
  CONNECTION_RESET_BY_PEER: 'reset',
  reset: 'reset',
  EMPTY_RESPONSE: 'empty',
  empty: 'empty',
  RANDOM_DATA_THEN_CLOSE: 'random',
  random: 'random',
  garbage: 'random',
  MALFORMED_RESPONSE_CHUNK: 'malformed',
  malformed: 'malformed',
};

export function canonicalFault(name: string): string | undefined {
  return ALIASES[name];
}

/**
 * Ends the connection the way a TCP fault names (docs/faults.md); returns false for an unknown fault
 * so the caller answers 500 `Unknown fault: <value>`.
 */
export function applyTransportFault(name: string, sink: ResponseSink): boolean {
  switch (ALIASES[name]) {
    case 'reset':
      sink.reset();
      return true;
    case 'empty':
      sink.closeEmpty();
      return true;
    case 'random':
      sink.writeRawAndClose(randomBytes(64));
      return true;
    case 'malformed':
      sink.writeRawAndClose(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nnot a chunk\r\n'));
      return true;
    default:
      return false;
  }
}

import type { Socket } from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export enum Preface {
  /** Every byte so far matches the HTTP/2 preface, which is not complete yet. */
  Partial,
  Http1,
  Http2,
}

/** What a connection's first bytes say: HTTP/2 with prior knowledge (h2c), HTTP/1, or not yet known. */
export function prefaceVerdict(bytes: Buffer): Preface {
  const n = Math.min(bytes.length, PREFACE.length);
  if (bytes.compare(PREFACE, 0, n, 0, n) !== 0) return Preface.Http1;
  return bytes.length < PREFACE.length ? Preface.Partial : Preface.Http2;
}

/**
 * Reads a plain connection's first bytes until they either are the HTTP/2 preface (h2c with prior
 * knowledge) or cannot be, then calls exactly one of the two with everything read so far. The
 * socket's listeners are gone by then; the caller decides whether to pause and unshift.
 * A peer that ends before the decision (a TCP health probe: no byte, or part of the preface) is
 * destroyed here: on an allowHalfOpen server nobody else would close it (CLOSE_WAIT forever).
 */
export function sniffHttp2Preface(socket: Socket, onHttp2: (bytes: Buffer) => void, onHttp1: (bytes: Buffer) => void): void {
  let seen: Buffer | null = null;
  const detach = (): void => {
    socket.off('data', onData);
    socket.off('end', onEnd);
  };
  const onEnd = (): void => {
    detach();
    socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    const bytes = seen === null ? chunk : Buffer.concat([seen, chunk]);
    const verdict = prefaceVerdict(bytes);
    if (verdict === Preface.Partial) {
      seen = bytes;
      return;
    }
    detach();
    if (verdict === Preface.Http2) onHttp2(bytes);
    else onHttp1(bytes);
  };
  socket.on('data', onData);
  socket.on('end', onEnd);
}

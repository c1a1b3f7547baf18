import type { Socket } from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

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
    const n = Math.min(bytes.length, PREFACE.length);
    const isPreface = bytes.compare(PREFACE, 0, n, 0, n) === 0;
    if (isPreface && bytes.length < PREFACE.length) {
      seen = bytes;
      return;
    }
    detach();
    if (isPreface) onHttp2(bytes);
    else onHttp1(bytes);
  };
  socket.on('data', onData);
  socket.on('end', onEnd);
}

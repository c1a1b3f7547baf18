/**
 * A raw HTTP/1.1 exchange for the fuzzer: any bytes out (methods and targets node's client would
 * refuse), the first response back, parsed just enough to check it.
 */
import net from 'node:net';

export interface WireResponse {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

export type WireOutcome =
  | { kind: 'response'; response: WireResponse; raw: Buffer }
  /** The server closed (or reset) the connection without a byte of answer. */
  | { kind: 'closed'; raw: Buffer }
  /** Bytes arrived that do not start an HTTP/1.x response. */
  | { kind: 'garbled'; raw: Buffer }
  /** Nothing complete and the connection still open when the bound passed. */
  | { kind: 'timeout'; raw: Buffer };

const HEAD_END = Buffer.from('\r\n\r\n');

/** The first response in `raw`, undefined while incomplete; `ended`: the peer closed (close-delimited body). */
export function parseResponse(raw: Buffer, ended: boolean, requestWasHead = false): WireResponse | 'garbled' | undefined {
  if (raw.length >= 5 && raw.subarray(0, 5).toString('latin1') !== 'HTTP/') return 'garbled';
  const headEnd = raw.indexOf(HEAD_END);
  if (headEnd === -1) return undefined;
  const lines = raw.toString('latin1', 0, headEnd).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]);
  if (!status) return 'garbled';
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const code = Number(status[1]);
  const start = headEnd + 4;
  if (requestWasHead || code < 200 || code === 204 || code === 304) return { status: code, headers, body: Buffer.alloc(0) };
  // An event stream never ends: its head is the answer.
  if ((headers.get('content-type') ?? '').startsWith('text/event-stream')) return { status: code, headers, body: Buffer.alloc(0) };
  const length = headers.get('content-length');
  if (length !== undefined) {
    const end = start + Number(length);
    return raw.length >= end ? { status: code, headers, body: raw.subarray(start, end) } : undefined;
  }
  if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) return dechunk(raw, start, code, headers);
  return ended ? { status: code, headers, body: raw.subarray(start) } : undefined;
}

function dechunk(raw: Buffer, from: number, status: number, headers: Map<string, string>): WireResponse | undefined {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(raw.toString('latin1', at, lineEnd), 16);
    if (Number.isNaN(size) || raw.length < lineEnd + 2 + size + 2) return undefined;
    if (size === 0) return { status, headers, body: Buffer.concat(parts) };
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Connects, writes `bytes`, half-closes when `endWrite`, and waits for the first response, the close,
 * or `boundMs`. The socket is always destroyed before this resolves.
 */
export function exchange(port: number, bytes: Buffer, options: { boundMs: number; endWrite: boolean; head?: boolean }): Promise<WireOutcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = Buffer.alloc(0);
    let done = false;
    const finish = (outcome: WireOutcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const settle = (ended: boolean): void => {
      const parsed = parseResponse(raw, ended, options.head);
      if (parsed === 'garbled') finish({ kind: 'garbled', raw });
      else if (parsed !== undefined) finish({ kind: 'response', response: parsed, raw });
      else if (ended) finish(raw.length === 0 ? { kind: 'closed', raw } : { kind: 'garbled', raw });
    };
    const timer = setTimeout(() => finish({ kind: 'timeout', raw }), options.boundMs);
    socket.on('connect', () => {
      socket.write(bytes);
      if (options.endWrite) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      raw = Buffer.concat([raw, chunk]);
      settle(false);
    });
    socket.on('error', () => settle(true));
    socket.on('close', () => settle(true));
  });
}

/**
 * Raw HTTP/2 frames for clients node:http2 will not play: half-closing after the preface, opening
 * streams past the server's advertised limit. Just enough framing and HPACK (static table) for that.
 * Also the node:http2 clients the tests share: `h2Get` on a session, `h2Fetch` on a session of its own.
 */
import http2, { type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import net, { type Socket } from 'node:net';
import tls from 'node:tls';

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
export const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8 } as const;
export const SETTING = { MAX_CONCURRENT_STREAMS: 3, INITIAL_WINDOW_SIZE: 4 } as const;
export const REFUSED_STREAM = 7;

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

export function settings(entries: Array<[number, number]> = []): Buffer {
  const payload = Buffer.alloc(entries.length * 6);
  entries.forEach(([id, value], k) => {
    payload.writeUInt16BE(id, k * 6);
    payload.writeUInt32BE(value, k * 6 + 2);
  });
  return frame(FRAME.SETTINGS, 0, 0, payload);
}

/** The client preface with an empty SETTINGS frame. */
export const OPENING = Buffer.concat([PREFACE, settings()]);

/**
 * HEADERS (END_HEADERS) of `GET /` (with END_STREAM) or `POST /` (without: its body is still to come),
 * HPACK static-table entries plus `:authority: x`.
 */
export function request(streamId: number, method: 'GET' | 'POST'): Buffer {
  const block = Buffer.from([method === 'GET' ? 0x82 : 0x83, 0x86, 0x84, 0x01, 0x01, 0x78]);
  return frame(FRAME.HEADERS, method === 'GET' ? 0x5 : 0x4, streamId, block);
}

/** Counts what a server sends on one connection. */
export class FrameCounter {
  readonly byType = new Map<number, number>();
  readonly settings = new Map<number, number>();
  refused = 0;
  goaway: { lastStreamId: number; code: number } | null = null;
  private buffered = Buffer.alloc(0);

  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.read(chunk));
  }

  count(type: number): number {
    return this.byType.get(type) ?? 0;
  }

  private read(chunk: Buffer): void {
    let bytes = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (bytes.length >= 9) {
      const length = bytes.readUIntBE(0, 3);
      if (bytes.length < 9 + length) break;
      const type = bytes[3];
      const flags = bytes[4];
      const payload = bytes.subarray(9, 9 + length);
      this.byType.set(type, this.count(type) + 1);
      if (type === FRAME.SETTINGS && (flags & 1) === 0) {
        for (let k = 0; k + 6 <= payload.length; k += 6) this.settings.set(payload.readUInt16BE(k), payload.readUInt32BE(k + 2));
      } else if (type === FRAME.RST_STREAM && payload.readUInt32BE(0) === REFUSED_STREAM) this.refused++;
      else if (type === FRAME.GOAWAY) this.goaway = { lastStreamId: payload.readUInt32BE(0) & 0x7fffffff, code: payload.readUInt32BE(4) };
      bytes = bytes.subarray(9 + length);
    }
    this.buffered = Buffer.from(bytes);
  }
}

/** GET `path` on `session`: the status and the body as text. */
export function h2Get(session: ClientHttp2Session, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let status = 0;
    let body = '';
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    stream.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    stream.on('end', () => resolve({ status, body }));
    stream.on('error', reject);
    stream.end();
  });
}

export interface H2Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The session's protocol: `h2` as ALPN settled it over TLS, `h2c` in cleartext. */
  alpn?: string;
}

/**
 * One request on a session of its own (h2c with prior knowledge for `http://`, TLS with ALPN h2 and any
 * certificate for `https://`), the session closed once the answer has ended.
 */
export function h2Fetch(authority: string, request: { method?: string; path?: string; headers?: OutgoingHttpHeaders; body?: string } = {}): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(authority, { rejectUnauthorized: false });
    session.on('error', reject);
    // Read on connect: a session the server ends with the answer has no socket by the stream's end.
    let alpn: string | undefined;
    session.once('connect', () => {
      alpn = session.alpnProtocol;
    });
    const stream = session.request({ ':method': request.method ?? 'GET', ':path': request.path ?? '/', ...request.headers });
    const chunks: Buffer[] = [];
    // 0 until response headers arrive: a stream the server ends without answering resolves with status 0.
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    stream.on('response', (received) => {
      headers = received;
      status = Number(received[':status']);
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      session.close();
      resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8'), alpn });
    });
    stream.on('error', (err) => {
      session.destroy();
      reject(err);
    });
    stream.end(request.body);
  });
}

/** A raw connection to `port` (TLS with ALPN h2 when `secure`) that has sent the preface and SETTINGS. */
export function openRaw(port: number, secure: boolean): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, ALPNProtocols: ['h2'] }, () => {
          socket.write(OPENING);
          resolve(socket);
        })
      : net.connect(port, '127.0.0.1', () => {
          socket.write(OPENING);
          resolve(socket);
        });
    socket.once('error', reject);
  });
}

/** Resolves with ms from now until `socket` closes, or null after `limitMs`. */
export function closedWithin(socket: Socket, limitMs: number): Promise<number | null> {
  const started = Date.now();
  return new Promise((resolve) => {
    if (socket.destroyed) resolve(0);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(null);
    }, limitMs);
    socket.on('error', () => {});
    socket.resume();
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

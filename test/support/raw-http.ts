/**
 * Shared pieces of the transport tests: listener defaults, an echo handler, and a raw socket client
 * that parses HTTP/1 responses itself (so tests see exactly what went on the wire).
 */
import net from 'node:net';
import tls from 'node:tls';
import forge from 'node-forge';
import { createListener, type Listener, type ListenerOptions, type RequestHandler } from '../../engine/transport/index.js';

export function listen(options: Partial<ListenerOptions>, handler: RequestHandler): Promise<Listener> {
  return createListener({ protocol: 'http', port: 0, host: '127.0.0.1', http2: true, maxBodyBytes: 1024, ...options }, handler);
}

/** Answers with what it received: method, url, version and raw headers as headers; the body as body. */
export const echo: RequestHandler = (request, sink) => {
  sink.send(
    200,
    [
      ['X-Method', request.method],
      ['X-Url', request.url],
      ['X-Version', request.httpVersion],
      ['X-Raw-Headers', JSON.stringify(request.rawHeaders)],
      ['X-Remote', `${request.remoteAddress}:${request.remotePort}`],
    ],
    request.body,
  );
};

export interface RawResponse {
  status: number;
  reason: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

export function headerOf(response: RawResponse, name: string): string | undefined {
  return response.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}

const NO_RESPONSE = Symbol('incomplete');

export class RawClient {
  private buffer = Buffer.alloc(0);
  ended = false;
  errorCode: string | null = null;
  private wake: (() => void) | null = null;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.notify();
    });
    socket.on('end', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.errorCode = error.code ?? error.message;
      this.notify();
    });
    socket.on('close', () => {
      this.ended = true;
      this.notify();
    });
  }

  static connect(port: number, tlsOptions?: tls.ConnectionOptions): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket: net.Socket = tlsOptions
        ? tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, ...tlsOptions }, () => resolve(new RawClient(socket)))
        : net.connect(port, '127.0.0.1', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  send(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Waits for the next complete response. `head`: the request was HEAD (no body follows). */
  async next(options: { head?: boolean } = {}): Promise<RawResponse> {
    for (;;) {
      const parsed = this.tryParse(options.head === true);
      if (parsed !== NO_RESPONSE) return parsed;
      if (this.ended) throw new Error(`connection ended before a full response (${this.errorCode ?? 'FIN'}): ${this.buffer.toString('latin1')}`);
      await this.changed();
    }
  }

  /** Waits for the peer to close; returns the unread bytes and how it closed. */
  async rest(): Promise<{ data: Buffer; errorCode: string | null }> {
    while (!this.ended) await this.changed();
    const data = this.buffer;
    this.buffer = Buffer.alloc(0);
    return { data, errorCode: this.errorCode };
  }

  close(): void {
    this.socket.destroy();
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private tryParse(head: boolean): RawResponse | typeof NO_RESPONSE {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end === -1) return NO_RESPONSE;
    const lines = this.buffer.toString('latin1', 0, end).split('\r\n');
    const match = /^HTTP\/1\.1 (\d{3}) (.*)$/.exec(lines[0]);
    if (!match) throw new Error(`bad status line: ${lines[0]}`);
    const status = Number(match[1]);
    const headers = lines.slice(1).map((line): [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon), line.slice(colon + 1).trim()];
    });
    const response: RawResponse = { status, reason: match[2], headers, body: Buffer.alloc(0) };
    let at = end + 4;
    const length = headerOf(response, 'content-length');
    if (head || status < 200 || status === 204 || status === 304) {
      // no body
    } else if (headerOf(response, 'transfer-encoding') !== undefined) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = this.buffer.indexOf('\r\n', at);
        if (lineEnd === -1) return NO_RESPONSE;
        const size = parseInt(this.buffer.toString('latin1', at, lineEnd), 16);
        if (this.buffer.length < lineEnd + 2 + size + 2) return NO_RESPONSE;
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
        parts.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      }
      response.body = Buffer.concat(parts);
    } else if (length !== undefined) {
      if (this.buffer.length < at + Number(length)) return NO_RESPONSE;
      response.body = this.buffer.subarray(at, at + Number(length));
      at += Number(length);
    } else {
      if (!this.ended) return NO_RESPONSE;
      response.body = this.buffer.subarray(at);
      at = this.buffer.length;
    }
    this.buffer = this.buffer.subarray(at);
    return response;
  }
}

export function envelopeOf(response: RawResponse): { code: string; type: string; message: string } {
  return JSON.parse(response.body.toString('utf8')).errors[0];
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves true when nothing accepts connections on the port any more. */
export function portIsClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

export interface Pki {
  caCert: string;
  serverKey: string;
  serverCert: string;
  clientKey: string;
  clientCert: string;
}

/**
 * TLS client options under which a client presents the 1024-bit key of `makePki`, or verifies against
 * its CA: Node 24's OpenSSL refuses keys that small at its default security level (svc sets level 0 on
 * its own contexts).
 */
export const WEAK_KEY_CLIENT = { ciphers: 'DEFAULT:@SECLEVEL=0' } as const;

/**
 * A throwaway CA with one server (localhost) and one client certificate, built with node-forge: 1024-bit
 * RSA keys, as old test certificates users bring have (an https imposter must serve them on every Node).
 */
export function makePki(): Pki {
  const { pki } = forge;
  const caKeys = pki.rsa.generateKeyPair(1024);
  const ca = pki.createCertificate();
  const notBefore = new Date(Date.now() - 3600_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = '01';
  ca.validity.notBefore = notBefore;
  ca.validity.notAfter = notAfter;
  const caName = [{ name: 'commonName', value: 'transport test CA' }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([{ name: 'basicConstraints', cA: true }]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());
  const issue = (serial: string, cn: string, extensions: object[]) => {
    const keys = pki.rsa.generateKeyPair(1024);
    const cert = pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = serial;
    cert.validity.notBefore = notBefore;
    cert.validity.notAfter = notAfter;
    cert.setSubject([{ name: 'commonName', value: cn }]);
    cert.setIssuer(caName);
    cert.setExtensions(extensions);
    cert.sign(caKeys.privateKey, forge.md.sha256.create());
    return { key: pki.privateKeyToPem(keys.privateKey), cert: pki.certificateToPem(cert) };
  };
  const server = issue('02', 'localhost', [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }]);
  const client = issue('03', 'transport test client', [{ name: 'extKeyUsage', clientAuth: true }]);
  return {
    caCert: pki.certificateToPem(ca),
    serverKey: server.key,
    serverCert: server.cert,
    clientKey: client.key,
    clientCert: client.cert,
  };
}

import type { OutgoingHeaders, ResponseSink } from '../transport/index.js';
import type { ToThread } from './protocol.js';

/** What a `send` carries for a header list: see ToThread `hid`. */
export type HeaderRef = (headers: OutgoingHeaders) => { headers?: OutgoingHeaders; hid: number };

/** The main thread's side of a request an engine thread forwarded: each answer goes back to that thread's sink. */
export class RemoteSink implements ResponseSink {
  constructor(
    readonly protocol: 'http1' | 'h2',
    private readonly r: number,
    private readonly post: (message: ToThread) => void,
    private readonly headerRef: HeaderRef,
  ) {}

  send(statusCode: number, headers: OutgoingHeaders, body: Buffer): void {
    this.post({ t: 'send', r: this.r, status: statusCode, ...this.headerRef(headers), body });
  }

  reset(): void {
    this.post({ t: 'reset', r: this.r });
  }

  closeEmpty(): void {
    this.post({ t: 'empty', r: this.r });
  }

  writeRawAndClose(bytes: Buffer): void {
    this.post({ t: 'raw', r: this.r, body: bytes });
  }
}

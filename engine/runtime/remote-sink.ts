import type { OutgoingHeaders, ResponseSink } from '../transport/index.js';
import { exactBytes, type Interner } from './intern.js';
import type { ToThread } from './protocol.js';

/** The engine thread's interners for static header lists and bodies. */
export interface Interners {
  headers: Interner<OutgoingHeaders>;
  bodies: Interner<Buffer>;
}

/** The main thread's side of a request an engine thread forwarded: each answer goes back to that thread's sink. */
export class RemoteSink implements ResponseSink {
  constructor(
    readonly protocol: 'http1' | 'h2',
    private readonly r: number,
    private readonly post: (message: ToThread) => void,
    private readonly interners: Interners,
  ) {}

  send(statusCode: number, headers: OutgoingHeaders, body: Buffer): void {
    const h = this.interners.headers.ref(headers);
    const b = this.interners.bodies.ref(body);
    this.post({
      t: 'send',
      r: this.r,
      status: statusCode,
      headers: h.value,
      hid: h.id,
      body: b.value && (b.id > 0 ? b.value : exactBytes(b.value)),
      bid: b.id,
    });
  }

  reset(): void {
    this.post({ t: 'reset', r: this.r });
  }

  closeEmpty(): void {
    this.post({ t: 'empty', r: this.r });
  }

  writeRawAndClose(bytes: Buffer): void {
    this.post({ t: 'raw', r: this.r, body: exactBytes(bytes) });
  }
}

import type { ConnectionFilterSpec, ConnectionTimeouts, OutgoingHeaders } from '../transport/index.js';
import type { WireRequest } from '../model/index.js';

/** Listener options an engine thread can receive (functions and shared objects become plain data). */
export interface PortableListenerOptions {
  protocol: 'http' | 'https';
  port: number;
  key?: string;
  cert?: string;
  mutualAuth?: boolean;
  rejectUnauthorized?: boolean;
  ca?: string | string[];
  ciphers?: string;
  http2: boolean;
  maxBodyBytes: number;
  timeouts?: ConnectionTimeouts;
  /** The main thread's body budget limit; each engine thread keeps its own of that size. */
  bodyBudgetBytes?: number;
  filter?: ConnectionFilterSpec;
}

/** Main thread to engine thread. `r`: the engine thread's request id. */
export type ToThread =
  | { t: 'listen'; id: number; fd: number; options: PortableListenerOptions; http2Allowed: Int32Array }
  | { t: 'close'; id: number }
  /**
   * `hid` > 0 names a header list the thread keeps (the HTTP/1 writer caches its encoding per list
   * object): sent with `headers` the first time, alone afterwards. 0: `headers` used once.
   */
  | { t: 'send'; r: number; status: number; headers?: OutgoingHeaders; hid: number; body: Uint8Array }
  /** Stubs changed: kept header lists are dropped (they belonged to old responses). */
  | { t: 'forget' }
  | { t: 'reset'; r: number }
  | { t: 'empty'; r: number }
  | { t: 'raw'; r: number; body: Uint8Array };

/** Engine thread to main thread. `id`: the shared listener. */
export type FromThread =
  | { t: 'listening'; id: number }
  | { t: 'listenFailed'; id: number; message: string; code?: string }
  | { t: 'closed'; id: number }
  | { t: 'accepted'; id: number }
  | { t: 'acceptFailed'; id: number; message: string; code?: string }
  | { t: 'req'; id: number; r: number; protocol: 'http1' | 'h2'; wire: WireRequest }
  | { t: 'log'; level: 'warn' | 'error'; message: string };

/** A Buffer again after structured cloning (which delivers a Uint8Array). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

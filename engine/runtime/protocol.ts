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
  /** The main thread's body budget (limit and its shared count, when it has one). */
  bodyBudget?: { limitBytes: number; memory?: SharedArrayBuffer };
  filter?: ConnectionFilterSpec;
}

/** Main thread to engine thread. `r`: the engine thread's request id. */
export type ToThread =
  | { t: 'listen'; id: number; fd: number; options: PortableListenerOptions; http2Allowed: Int32Array }
  | { t: 'close'; id: number }
  /** `headers`/`hid` and `body`/`bid`: as an Interner sends them (intern.ts). */
  | { t: 'send'; r: number; status: number; headers?: OutgoingHeaders; hid: number; body?: Uint8Array; bid: number }
  /** Stubs changed: kept header lists and bodies are dropped (they belonged to old responses). */
  | { t: 'forget' }
  | { t: 'reset'; r: number }
  | { t: 'empty'; r: number }
  | { t: 'raw'; r: number; body: Uint8Array };

/** Engine thread to main thread. `id`: the shared listener. */
export type FromThread =
  | { t: 'listening'; id: number }
  | { t: 'listenFailed'; id: number; message: string; code?: string }
  | { t: 'closed'; id: number }
  | { t: 'accepted'; id: number; count: number }
  | { t: 'acceptFailed'; id: number; message: string; code?: string }
  | { t: 'req'; id: number; r: number; protocol: 'http1' | 'h2'; wire: WireRequest }
  | { t: 'log'; level: 'warn' | 'error'; message: string };

/** A Buffer again after structured cloning (which delivers a Uint8Array). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

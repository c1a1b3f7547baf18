import type { MessagePort } from 'node:worker_threads';
import type { ConnectionFilterSpec, ListenerOptions, OutgoingHeaders } from '../transport/index.js';
import type { WireRequest } from '../model/index.js';
import type { FaultObserver, ProxyMode, ProxyObserver, SharedFaultDraws } from '../respond/index.js';
import type { FlowStoreMetrics, ScenarioCellsPlan } from '../state/index.js';
import type { RecordedRequest, ServeOptions } from '../serve/index.js';
import type { ScriptSettings } from '../script/svc/index.js';
import type { LinkOffer } from '../threads/index.js';

/**
 * A whole imposter as engine threads serve it: its validated config, from which each
 * thread compiles its own stub set, responses and behaviors, and the shared memory its counters live in.
 */
export interface ImposterPlan {
  port: number;
  protocol: string;
  /** The imposter's config without stubs, as read back (defaultResponse, name, ...). */
  config: Record<string, unknown>;
  enabled: boolean;
  options: ServeOptions;
  stubs: Array<{
    config: Record<string, unknown>;
    /** The stub's shared cycle position (respond newCycleSlot). */
    cycle: SharedArrayBuffer;
    /** The stub's key on the owner, which names it in proxy recordings (proxy-owner.ts). */
    key: number;
  }>;
  /** The imposter's numberOfRequests (a ThreadCounter's buffer: this thread adds to its own slot). */
  count: SharedArrayBuffer;
  /** The imposter's fault draws (the seeded stream stays one across threads). */
  faultDraws: SharedFaultDraws;
  /**
   * Three Int32s: [0] proxyAlways recordings posted by engine threads and not received yet (the owner
   * drains them before stub reads); [1] the next recording's sequence number (its order across threads);
   * [2] `--debug` matches posted and not received yet (drained before stub reads too).
   */
  recordings: SharedArrayBuffer;
  /** The in-memory flow store's scenario states in shared memory (per-core; absent: reached by message). */
  scenarios?: ScenarioCellsPlan;
  /** Present when its stubs run scripts: their settings, and the sandbox worker main placed it on (JavaScript). */
  scripts?: {
    settings: ScriptSettings;
    jsWorker?: number;
    /** Its running `_svc.script` count on every thread, and the most it may run at once (the rhai runner's share). */
    share?: { count: SharedArrayBuffer; limit: number };
  };
}

/** Main thread to engine thread on the control channel: a direct link to a script worker (engine/threads/links.ts). */
export interface ScriptLinkMessage {
  t: 'scriptLink';
  offer: LinkOffer;
  port: MessagePort;
}

/**
 * Main thread to engine thread on the control channel, posted before the listener's version is
 * bumped. `plan` absent: forward every request.
 */
export interface PlanMessage {
  id: number;
  version: number;
  plan?: ImposterPlan;
}

/** A metric an engine thread reports (fault, proxy and flow store observer calls, replayed on main). */
export type ObserverEvent =
  | { name: 'onFault'; args: Parameters<FaultObserver['onFault']> }
  | { name: 'onUpstream'; args: Parameters<ProxyObserver['onUpstream']> }
  | { name: 'onProxy'; args: Parameters<ProxyObserver['onProxy']> }
  | { name: 'onLatencyInjected'; args: Parameters<FaultObserver['onLatencyInjected']> }
  | { name: 'onErrorStatus'; args: Parameters<FaultObserver['onErrorStatus']> }
  | { name: 'onFlowStateOp'; args: Parameters<FlowStoreMetrics['onFlowStateOp']> }
  | { name: 'onScript'; args: [ruleId: string, result: string, durationMs: number] }
  | { name: 'onScriptError'; args: [ruleId: string, errorType: string] };

/**
 * Engine thread to main thread on the control channel, which main drains synchronously (before a
 * journal read, a metrics scrape) as well as when idle: a count key, finished records (posted before
 * their responses are written), the keys of its metric event ring.
 */
export type ThreadReport =
  | { t: 'key'; key: CountKey }
  /** Finished records of one turn, in the order the thread finished them (RecordBatch). */
  | { t: 'recs'; records: Array<{ id: number; record: RecordedRequest; notify: boolean }> }
  /** A metric event the thread could not put in its ring (full): posted instead. */
  | { t: 'event'; id: number; event: ObserverEvent }
  /** A new key of the thread's metric event ring (event-ring.ts), posted before its first entry. */
  | { t: 'eventKey'; key: EventKey }
  /** Entries wait in the thread's event ring (sent when one finds it drained): main drains it. */
  | { t: 'eventsWaiting' }
  /** A proxyAlways recording, posted before its response is written: the owner applies it in arrival order. */
  | { t: 'recording'; id: number; recording: ProxyRecording }
  /** `--debug`: what the stub with key `stub` matched and answered, posted before the response is written. */
  | { t: 'match'; id: number; stub: number; entry: Record<string, unknown> };

/** A recording as the owner stores it: which proxy response made it (ResponseAt), where its mode puts it, what. */
export interface ProxyRecording {
  /** Made in this order across threads (ImposterPlan.recordings); the owner applies them in it. */
  seq: number;
  at: { stub: number; response: number };
  mode: ProxyMode;
  predicates: unknown[];
  recorded: Record<string, unknown>;
}

/** What names a metric event ring entry (event-ring.ts): the event with its label arguments. */
export interface EventKey {
  key: number;
  /** The listener (the imposter) whose observers the event goes to. */
  id: number;
  name: ObserverEvent['name'];
  /** The event's arguments, the measured one (`valueAt`, -1: none) standing at 0. */
  args: Array<string | number | boolean>;
  valueAt: number;
  /** The ring, with the thread's first key. */
  ring?: SharedArrayBuffer;
}

/** Engine thread to main thread, before its first count: where (method, status) of listener `id` is counted. */
export interface CountKey {
  id: number;
  method: string;
  status: number;
  /** Counter index in the thread's table; `table` comes with the first key of each new table. */
  at: number;
  table?: SharedArrayBuffer;
}

/** Listener options an engine thread can receive (functions and shared objects become plain data). */
export type PortableListenerOptions = Pick<
  ListenerOptions,
  'protocol' | 'port' | 'key' | 'cert' | 'mutualAuth' | 'rejectUnauthorized' | 'ca' | 'ciphers' | 'http2' | 'maxBodyBytes' | 'timeouts'
> & {
  /** The main thread's body budget (limit and its shared count, when it has one). */
  bodyBudget?: { limitBytes: number; memory?: SharedArrayBuffer };
  filter?: ConnectionFilterSpec;
};

/** Main thread to engine thread. `r`: the engine thread's request id. */
export type ToThread =
  | { t: 'listen'; id: number; fd: number; options: PortableListenerOptions; http2Allowed: Int32Array; version: Int32Array }
  | { t: 'close'; id: number }
  /** `headers`/`hid` and `body`/`bid`: as an Interner sends them (intern.ts). */
  | { t: 'send'; r: number; status: number; headers?: OutgoingHeaders; hid: number; body?: Uint8Array; bid: number }
  /** Stubs changed: kept header lists and bodies are dropped (they belonged to old responses). */
  | { t: 'forget' }
  | { t: 'reset'; r: number }
  | { t: 'empty'; r: number }
  | { t: 'raw'; r: number; body: Uint8Array }
  /** The owner's answer to call `c`, a flow store or proxy recorder one (`error`: it rejected with that message). */
  | { t: 'done'; c: number; value?: unknown; error?: string };

/** Engine thread to main thread. `id`: the shared listener. */
export type FromThread =
  | { t: 'listening'; id: number }
  | { t: 'listenFailed'; id: number; message: string; code?: string }
  | { t: 'closed'; id: number }
  | { t: 'accepted'; id: number; count: number }
  | { t: 'acceptFailed'; id: number; message: string; code?: string }
  | { t: 'req'; id: number; r: number; protocol: 'http1' | 'h2'; wire: WireRequest }
  /** A flow store operation on listener `id`'s imposter store, owned by main (RemoteFlowStore). */
  | { t: 'flow'; id: number; c: number; op: string; args: unknown[] }
  /** A proxy recording step on listener `id`'s imposter, whose stubs main owns (ProxyOwner). */
  | { t: 'proxy'; id: number; c: number; op: string; args: unknown[] }
  | { t: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; message: string }
  /** A script worker ignored a deadline past its grace on this thread's link (main replaces it). */
  | { t: 'scriptStuck'; pool: string; worker: number; generation: number }
  /** This thread's script runs wait behind busy workers of `pool` (main may grow it). */
  | { t: 'scriptStall'; pool: string };

/** A Buffer again after structured cloning (which delivers a Uint8Array). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

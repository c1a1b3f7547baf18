import type { MessagePort } from 'node:worker_threads';

/** The key of a hosted thread's wiring in its workerData (beside the owner's own fields). */
export const WIRING_KEY = '__thread';

/** What a ThreadHost hands its thread: the heartbeat word, the port `ready` goes on, test hooks. */
export interface ThreadWiring {
  /** Int32 [0]: beats, counted up by the thread's own event loop every `intervalMs`. */
  beat: SharedArrayBuffer;
  intervalMs: number;
  /** The thread posts 'ready' here once it serves. */
  control: MessagePort;
  /** Test hook (SVC_TEST_THREAD_SPIN): spin forever right after ready, as a hung thread does. */
  spin?: boolean;
  /** Test hook (SVC_TEST_THREAD_SLOW_START=kind:ms): block this long before ready, as a cold start on a loaded machine does. */
  readyDelayMs?: number;
}

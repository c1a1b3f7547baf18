/**
 * The thread side of a ThreadHost: beats on the shared heartbeat word from this thread's event loop
 * (a thread whose loop stops turning stops beating, which is how the host tells a hung thread from a
 * busy one), and says when it is ready.
 */
import { workerData } from 'node:worker_threads';
import { WIRING_KEY, type ThreadWiring } from './wiring.js';

export interface HostedThread {
  /** Tells the host this thread serves (the host arms its heartbeat watch then). */
  ready(): void;
  /** One beat now: long synchronous work that polls (a script's interrupt check) keeps the thread alive with it. */
  beat(): void;
}

export function hostedThread(): HostedThread {
  const wiring = (workerData as Record<string, unknown> | undefined)?.[WIRING_KEY] as ThreadWiring | undefined;
  if (!wiring) throw new Error('hostedThread() runs in a thread a ThreadHost started');
  const beats = new Int32Array(wiring.beat);
  const beat = (): void => {
    Atomics.add(beats, 0, 1);
  };
  // Unref'd: the beat never keeps a thread alive by itself.
  setInterval(beat, wiring.intervalMs).unref();
  return {
    ready() {
      // Test hook only (SVC_TEST_THREAD_SLOW_START): the thread is blocked, as during a slow module load, so
      // nothing it was sent (its host's batches, links) is seen before it says ready.
      if (wiring.readyDelayMs) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wiring.readyDelayMs);
      beat();
      wiring.control.postMessage('ready');
      if (wiring.spin) {
        // Test hook only (SVC_TEST_THREAD_SPIN): a loop no deadline reaches.
        setTimeout(() => {
          for (;;);
        }, 20);
      }
    },
    beat,
  };
}

/**
 * proxyOnce under concurrency: requests whose generated predicates are the same, arriving while the
 * first of them is still at the upstream, wait for its recording and replay it instead of calling the
 * upstream and recording a stub each (one loop or many requests in flight, the upstream sees one call
 * and the imposter gets one stub, as if the requests had come one after another).
 */
import { canonicalJson } from '../../model/index.js';

/** A recording in flight: resolves to the stub response it stored, or undefined when it stored none. */
type Flight = Promise<Record<string, unknown> | undefined>;

/** By proxy response (its compiled object: gone with its stub), then by canonical predicates. */
const flights = new WeakMap<object, Map<string, Flight>>();

export type OnceOutcome<T> = { made: T } | { replay: Record<string, unknown> };

/**
 * What the first request of a flight did: it called the upstream (`made`) and stored `recorded` (or
 * nothing), or it learnt of a recording made elsewhere (another thread's) and replays that.
 */
export type OnceRecording<T> = { made: T; recorded: Record<string, unknown> | undefined } | { replay: Record<string, unknown> };

/**
 * Runs `record` (call the upstream, store the recording) unless a request with the same `predicates`
 * is already doing it for `source`: then waits for that one and returns the stub response it stored.
 * A first call that failed or stored nothing lets the next waiter try itself, as the next request
 * would have on one loop.
 */
export async function recordOnce<T>(source: object, predicates: unknown, record: () => Promise<OnceRecording<T>>): Promise<OnceOutcome<T>> {
  const key = canonicalJson(predicates);
  let byKey = flights.get(source);
  if (!byKey) {
    byKey = new Map();
    flights.set(source, byKey);
  }
  for (let first = byKey.get(key); first; first = byKey.get(key)) {
    const recorded = await first;
    if (recorded) return { replay: structuredClone(recorded) };
  }
  let finish!: (recorded: Record<string, unknown> | undefined) => void;
  byKey.set(
    key,
    new Promise((resolve) => {
      finish = resolve;
    }),
  );
  let recorded: Record<string, unknown> | undefined;
  try {
    const result = await record();
    if ('replay' in result) {
      recorded = result.replay;
      return { replay: structuredClone(result.replay) };
    }
    recorded = result.recorded;
    return { made: result.made };
  } finally {
    byKey.delete(key);
    finish(recorded);
  }
}

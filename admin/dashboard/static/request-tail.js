// Feeds one imposter's TailStore from the event stream (docs/metrics-and-events.md). On every (re)connect, on `lagged`
// and on a gap in the journal index, the missed entries are fetched with `since=<last index>` from the
// dashboard's journal read (each entry with its index and flow id, as events carry them); events the
// store already holds are dropped by index.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, readEventStream } from './api.js';
import { TailStore } from './tail-store.js';

const RECONNECT_MS = 1000;
/** How often the server's numberOfRequests is re-read while requests arrive. */
const COUNT_REFRESH_MS = 2000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `{store, status, clear}`: status is connecting|live|reconnecting; the store also holds the server's
 * numberOfRequests (re-read while requests arrive); `onLifecycle(data)` runs per imposter event.
 */
export function useRequestTail(port, onLifecycle) {
  const [store] = useState(() => new TailStore());
  const lifecycle = useRef(onLifecycle);
  lifecycle.current = onLifecycle;
  const [status, setStatus] = useState('connecting');

  useEffect(() => {
    const controller = new AbortController();
    let stopped = false;
    let queue = Promise.resolve();
    let countTimer;

    const reconcile = async () => {
      const page = await api('GET', `/_dashboard/api/imposters/${port}/requests?since=${store.cursor}&fields=summary`);
      const body = page.body;
      store.add(body.entries, 0, true);
      if (body.nextIndex > store.cursor) store.cursor = body.nextIndex;
      store.setCounts(body.numberOfRequests, body.truncated);
    };
    // A later read catches requests the stream has not delivered yet and the exact count.
    const refreshCounts = () => {
      if (countTimer !== undefined) return;
      countTimer = setTimeout(() => {
        countTimer = undefined;
        enqueue({ event: 'recount' });
      }, COUNT_REFRESH_MS);
    };
    const handle = async ({ event, data }) => {
      if (event === 'hello' || event === 'lagged' || event === 'recount') return reconcile();
      if (event === 'imposter') return lifecycle.current?.(data);
      if (event !== 'request') return undefined;
      if (typeof data.index === 'number') {
        if (data.index <= store.cursor) return undefined;
        if (data.index > store.cursor + 1) return reconcile();
      }
      store.add([data], 1);
      refreshCounts();
      return undefined;
    };
    // Events are handled one after another, so a reconcile finishes before the next event is judged.
    const enqueue = (event) => {
      queue = queue.then(() => handle(event)).catch(() => undefined);
    };

    // The journal is read at once, not after the stream's hello: the page shows requests a round trip sooner.
    enqueue({ event: 'recount' });
    (async () => {
      while (!stopped) {
        try {
          await readEventStream(
            `/events?port=${port}`,
            (event) => {
              if (event.event === 'hello') setStatus('live');
              enqueue(event);
            },
            controller.signal,
          );
        } catch {
          // Network error, abort or refusal: retry below unless the page went away.
        }
        if (stopped) return;
        setStatus('reconnecting');
        await sleep(RECONNECT_MS);
      }
    })();
    return () => {
      stopped = true;
      clearTimeout(countTimer);
      controller.abort();
    };
  }, [port]);

  const clear = async () => {
    await api('DELETE', `/imposters/${port}/savedRequests`);
    store.clear();
  };

  return { store, status, clear };
}

/** Re-renders the caller when the store changes: at most once per animation frame, or per `everyMs`. */
export function useStore(store, everyMs = 0) {
  const [, setVersion] = useState(0);
  useEffect(() => {
    let timer;
    let last = 0;
    const bump = () => {
      timer = undefined;
      last = Date.now();
      setVersion((v) => v + 1);
    };
    const unsubscribe = store.subscribe(() => {
      if (everyMs === 0) bump();
      else if (timer === undefined) timer = setTimeout(bump, Math.max(0, last + everyMs - Date.now()));
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [store, everyMs]);
}

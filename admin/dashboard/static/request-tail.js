// One imposter's recorded requests, loaded through `savedRequests?since=` and kept current from the
// event stream (SPEC §6): on every (re)connect, on `lagged` and on a gap in the journal index, the
// missed entries are fetched with `since=<last index>`; events already covered are dropped.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, readEventStream } from './api.js';

const RETENTION = 10000;
const RECONNECT_MS = 1000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `{entries: [{seq, request}] (oldest first), status: connecting|live|reconnecting}`; `seq` is a
 * page-local key; `onLifecycle(data)` runs per imposter event.
 */
export function useRequestTail(port, onLifecycle) {
  const store = useRef({ entries: [], cursor: 0, seq: 0 });
  const lifecycle = useRef(onLifecycle);
  lifecycle.current = onLifecycle;
  const [, setVersion] = useState(0);
  const [status, setStatus] = useState('connecting');

  useEffect(() => {
    store.current = { entries: [], cursor: 0, seq: 0 };
    const controller = new AbortController();
    let stopped = false;
    let queue = Promise.resolve();
    const changed = () => setVersion((v) => v + 1);

    const keep = (items) => {
      const { entries } = store.current;
      for (const request of items) entries.push({ seq: (store.current.seq += 1), request });
      if (entries.length > RETENTION) entries.splice(0, entries.length - RETENTION);
    };
    const reconcile = async () => {
      const page = await api('GET', `/imposters/${port}/savedRequests?since=${store.current.cursor}`);
      keep(page.body);
      const next = Number(page.headers.get('x-svc-next-index'));
      if (page.headers.has('x-svc-next-index') && next > store.current.cursor) store.current.cursor = next;
      changed();
    };
    const handle = async ({ event, data }) => {
      if (event === 'hello' || event === 'lagged') return reconcile();
      if (event === 'imposter') return lifecycle.current?.(data);
      if (event !== 'request') return undefined;
      if (typeof data.index === 'number') {
        if (data.index <= store.current.cursor) return undefined;
        if (data.index > store.current.cursor + 1) return reconcile();
        store.current.cursor = data.index;
      }
      keep([data.request]);
      changed();
      return undefined;
    };
    // Events are handled one after another, so a reconcile finishes before the next event is judged.
    const enqueue = (event) => {
      queue = queue.then(() => handle(event)).catch(() => undefined);
    };

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
      controller.abort();
    };
  }, [port]);

  return { entries: store.current.entries, status };
}

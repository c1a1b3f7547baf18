// One imposter's recorded requests, kept outside preact. Arrivals wait in `pending` and join the list
// once per animation frame, so a burst of events costs one render; each entry is summarised once, when
// it arrives, and never re-serialised. Pure apart from the injected frame scheduler.

export const RETENTION = 10000;

const frame = (run) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(run) : setTimeout(run, 16));

/** `?a=1&b=2` of a recorded query map, or of the query string a summary carries ('' when empty). */
function queryText(query) {
  if (!query) return '';
  if (typeof query === 'string') return query === '' ? '' : `?${query}`;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The row's facts, computed once per entry. */
export function summarise(index, flowId, request, partial = false) {
  const outcome = request.matchOutcome;
  return {
    index,
    /** Only the summary fields: the detail reads the whole entry by index. */
    partial,
    flowId: flowId ?? '',
    request,
    time: Date.parse(request.timestamp),
    method: request.method,
    target: `${request.path}${queryText(request.query)}`,
    status: request.status,
    latencyMs: request.latencyMs,
    kind: outcome ? (outcome.matched ? 'match' : 'miss') : 'none',
    stubId: outcome?.matched ? outcome.stubId : undefined,
    stubIndex: outcome?.matched ? outcome.stubIndex : undefined,
  };
}

/** The key a served stub is counted under: its id, else its index at the time. */
export const stubKey = (entry) => (entry.stubId !== undefined ? `id:${entry.stubId}` : `#${entry.stubIndex}`);

/** `{missesOnly, method, path, status, flowId}` as a test of one entry; status accepts `404` or `4xx`. */
export function filterTest(filter = {}) {
  const path = (filter.path ?? '').trim().toLowerCase();
  const status = (filter.status ?? '').trim().toLowerCase();
  const flowId = (filter.flowId ?? '').trim();
  const method = filter.method ?? '';
  const statusTest = status === '' ? undefined : /^[1-5]xx$/.test(status) ? (s) => s !== undefined && String(s)[0] === status[0] : (s) => String(s) === status;
  return (entry) =>
    (!filter.missesOnly || entry.kind === 'miss')
    && (method === '' || entry.method === method)
    && (path === '' || entry.target.toLowerCase().includes(path))
    && (statusTest === undefined || statusTest(entry.status))
    && (flowId === '' || entry.flowId === flowId);
}

export class TailStore {
  constructor(schedule = frame) {
    this.schedule = schedule;
    this.entries = [];
    this.visible = [];
    this.pending = [];
    this.cursor = 0;
    this.paused = false;
    this.filter = {};
    this.test = filterTest();
    this.hits = new Map();
    this.listeners = new Set();
    this.scheduled = false;
    this.numberOfRequests = undefined;
    this.truncated = false;
  }

  /** The server's numbers, from a journal read. */
  setCounts(numberOfRequests, truncated) {
    this.numberOfRequests = numberOfRequests;
    this.truncated ||= truncated;
    this.request(true);
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify() {
    for (const listener of this.listeners) listener();
  }

  /**
   * `[{index, flowId, request}]` in index order; entries at or below the cursor are already here.
   * `counted`: each new one is a request the last numberOfRequests did not include (a streamed event).
   */
  add(items, counted = 0, partial = false) {
    for (const item of items) {
      if (typeof item.index === 'number') {
        if (item.index <= this.cursor) continue;
        this.cursor = item.index;
      }
      this.pending.push(summarise(item.index, item.flowId, item.request, partial));
      if (counted > 0 && this.numberOfRequests !== undefined) this.numberOfRequests += 1;
    }
    this.request();
  }

  /** Schedules one flush for the next frame; `always` also when nothing is pending (counts changed). */
  request(always = false) {
    if (this.scheduled || (!always && (this.paused || this.pending.length === 0))) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  flush() {
    if (this.paused || this.pending.length === 0) {
      this.notify();
      return;
    }
    const arrived = this.pending;
    this.pending = [];
    for (const entry of arrived) {
      this.entries.push(entry);
      if (entry.kind === 'match') this.hits.set(stubKey(entry), (this.hits.get(stubKey(entry)) ?? 0) + 1);
      if (this.test(entry)) this.visible.push(entry);
    }
    const over = this.entries.length - RETENTION;
    if (over > 0) {
      const evicted = this.entries.splice(0, over);
      for (const entry of evicted) if (entry.kind === 'match') this.hits.set(stubKey(entry), this.hits.get(stubKey(entry)) - 1);
      const last = evicted[evicted.length - 1].index;
      let drop = 0;
      while (drop < this.visible.length && this.visible[drop].index <= last) drop += 1;
      if (drop > 0) this.visible.splice(0, drop);
    }
    this.notify();
  }

  setFilter(filter) {
    this.filter = filter;
    this.test = filterTest(filter);
    this.visible = this.entries.filter(this.test);
    this.notify();
  }

  setPaused(paused) {
    this.paused = paused;
    if (paused) this.notify();
    else {
      this.flush();
      this.notify();
    }
  }

  /** After the server cleared its journal: indexes are not reused, so the cursor stays. */
  clear() {
    this.entries = [];
    this.visible = [];
    this.pending = [];
    this.hits = new Map();
    this.numberOfRequests = 0;
    this.notify();
  }

  hitsOf(stub, index) {
    return (stub.id !== undefined ? this.hits.get(`id:${stub.id}`) : undefined) ?? this.hits.get(`#${index}`) ?? 0;
  }
}

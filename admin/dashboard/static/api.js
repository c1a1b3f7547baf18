// The admin API as the page calls it: JSON in and out, the API key (when one is given) on every call.

const KEY_STORAGE = 'svc.apiKey';
const listeners = new Set();

export function apiKey() {
  return sessionStorage.getItem(KEY_STORAGE) ?? '';
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

/** Called with no argument whenever the server answers 401, so the app can fall back to the key form. */
export function onUnauthorized(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function headersWithKey(extra = {}) {
  const headers = { Accept: 'application/json', ...extra };
  const key = apiKey();
  if (key) headers.Authorization = key;
  return headers;
}

export class ApiError extends Error {
  constructor(status, body) {
    const entries = Array.isArray(body?.errors) ? body.errors : [];
    super(entries.map((e) => e.message).join('; ') || `HTTP ${status}`);
    this.status = status;
    this.entries = entries;
  }
}

/** One admin call; resolves `{status, headers, body}` on 2xx, rejects with ApiError otherwise. */
export async function api(method, path, body) {
  const init = { method, headers: headersWithKey() };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    init.headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let parsed = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON (a text answer): keep the text.
  }
  if (response.status === 401) for (const listener of listeners) listener();
  if (!response.ok) throw new ApiError(response.status, parsed);
  return { status: response.status, headers: response.headers, body: parsed };
}

/**
 * Reads a server-sent event stream over fetch (EventSource cannot send the API key header) and calls
 * `onEvent({event, id, data})` per event; resolves when the stream ends, rejects on a network error or
 * a non-2xx answer. `signal` aborts it.
 */
export async function readEventStream(path, onEvent, signal) {
  const response = await fetch(path, { headers: headersWithKey({ Accept: 'text/event-stream' }), signal });
  if (response.status === 401) for (const listener of listeners) listener();
  if (!response.ok || !response.body) throw new ApiError(response.status, undefined);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const parsed = parseFrame(frame);
      if (parsed) onEvent(parsed);
    }
  }
}

function parseFrame(frame) {
  let event = 'message';
  let id;
  const data = [];
  for (const line of frame.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = Number(value);
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { event, id, data: JSON.parse(data.join('\n')) };
}

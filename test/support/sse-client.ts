/**
 * A minimal EventSource-style client over node:http for tests: parses `text/event-stream` exactly
 * as the WHATWG rules say (fields, multi-line data, comments, CR/LF/CRLF line ends) and lets a test
 * read events in order, pause reading (a slow consumer) and close. No reconnection: tests reconnect
 * explicitly, as the stream has no replay anyway.
 */
import { request, type IncomingMessage, type ClientRequest } from 'node:http';

export interface SseEvent {
  event: string;
  data: string;
  /** The last event id seen so far (SSE semantics: it persists across events). */
  lastEventId: string;
  /** True when this event itself carried an `id:` field. */
  hasId: boolean;
}

export function eventJson(event: SseEvent): any {
  return JSON.parse(event.data);
}

export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** Body text of a non-200 answer. */
  body = '';
  private consumed = 0;
  private buffer = '';
  private dataLines: string[] = [];
  private eventType = '';
  private lastEventId = '';
  private sawId = false;
  private waiters: Array<() => void> = [];
  private ended = false;

  private constructor(
    readonly status: number,
    readonly headers: IncomingMessage['headers'],
    private readonly req: ClientRequest,
    private readonly res: IncomingMessage,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (status === 200) this.feed(chunk);
      else this.body += chunk;
      this.wake();
    });
    res.on('end', () => {
      this.ended = true;
      this.wake();
    });
    res.on('error', () => {
      this.ended = true;
      this.wake();
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { Accept: 'text/event-stream', ...headers }, agent: false });
      req.on('response', (res) => resolve(new SseClient(res.statusCode ?? 0, res.headers, req, res)));
      req.on('error', reject);
      req.end();
    });
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) return;
      // A lone CR at the end may be the first half of CRLF: wait for more.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) return;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) {
      this.comments.push(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.eventType = value;
    else if (field === 'data') this.dataLines.push(value);
    else if (field === 'id' && !value.includes('\0')) {
      this.lastEventId = value;
      this.sawId = true;
    }
  }

  private dispatch(): void {
    const hasId = this.sawId;
    this.sawId = false;
    if (this.dataLines.length === 0) {
      this.eventType = '';
      return;
    }
    this.events.push({ event: this.eventType || 'message', data: this.dataLines.join('\n'), lastEventId: this.lastEventId, hasId });
    this.dataLines = [];
    this.eventType = '';
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** The next unread event satisfying `accept` (unread ones before it are skipped). */
  async next(accept: (e: SseEvent) => boolean = () => true, timeoutMs = 60_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.consumed < this.events.length) {
        const event = this.events[this.consumed++]!;
        if (accept(event)) return event;
      }
      if (this.ended) throw new Error('event stream ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching event within ${timeoutMs} ms (got ${this.events.map((e) => e.event).join(',')})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves once `check()` holds, re-checked as data arrives. */
  async until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`condition not met within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 50));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Stops reading the socket: the server sees TCP backpressure. */
  pause(): void {
    this.res.pause();
  }

  resume(): void {
    this.res.resume();
  }

  close(): void {
    this.req.destroy();
    this.res.destroy();
    this.ended = true;
    this.wake();
  }
}

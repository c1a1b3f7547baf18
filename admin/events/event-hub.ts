import type { ServerResponse } from 'node:http';
import { clausesMatch, type EngineObserver, type LifecycleAction, type RecordedRequest } from '../../engine/manager/index.js';
import { SseSubscriber, type BufferLimits, type EventFilter, type SubscriberStats } from './sse-subscriber.js';

export interface EventHubOptions {
  /** Reported in `hello` (docs/c-abi.md). */
  engineVersion: string;
  /** Heartbeat comment interval; docs/limits.md: 15 s. */
  pingIntervalMs?: number;
  limits?: Partial<BufferLimits>;
}

export interface EventHubStats {
  subscribers: number;
  /** The highest sequence number handed out so far. */
  seq: number;
  perSubscriber: SubscriberStats[];
}

const DEFAULT_LIMITS: BufferLimits = { maxQueuedEvents: 1024, maxQueuedBytes: 1024 * 1024 };

/**
 * The event stream of docs/metrics-and-events.md: engine observations become SSE frames with one monotonic `id:`
 * across request and lifecycle events. Nothing is kept for replay; a frame is serialised once,
 * only when some subscriber wants it, and each subscriber buffers within its limits.
 */
export class EventHub implements EngineObserver {
  private seq = 0;
  private readonly subscribers = new Set<SseSubscriber>();
  private readonly limits: BufferLimits;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: EventHubOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.heartbeat = setInterval(() => {
      for (const subscriber of this.subscribers) subscriber.comment(': ping\n\n');
    }, options.pingIntervalMs ?? 15_000);
    this.heartbeat.unref();
  }

  /** Starts streaming to `response`: headers, then `hello`, then matching events until the client goes. */
  subscribe(response: ServerResponse, filter: EventFilter): void {
    response.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    const subscriber = new SseSubscriber(response, filter, this.limits);
    const types = [...(filter.requests ? ['requests'] : []), ...(filter.lifecycle ? ['lifecycle'] : [])];
    const hello = { engineVersion: this.options.engineVersion, seq: this.seq, types, port: filter.port };
    subscriber.writeNow(`event: hello\ndata: ${JSON.stringify(hello)}\n\n`);
    this.subscribers.add(subscriber);
    response.on('close', () => {
      subscriber.close();
      this.subscribers.delete(subscriber);
    });
  }

  wantsRecords(): boolean {
    return this.subscribers.size > 0;
  }

  onRecorded(port: number, index: number, request: RecordedRequest, flowId?: string): void {
    const id = ++this.seq;
    if (this.subscribers.size === 0) return;
    const resolvedFlowId = flowId ?? String(port);
    const flowIdOf = () => resolvedFlowId;
    let frame: string | undefined;
    for (const subscriber of this.subscribers) {
      const filter = subscriber.filter;
      if (!filter.requests || (filter.port !== null && filter.port !== port)) continue;
      if (filter.clauses.length > 0 && !clausesMatch(filter.clauses, request, flowIdOf)) continue;
      frame ??= `id: ${id}\nevent: request\ndata: ${JSON.stringify({ port, flowId: resolvedFlowId, index, request })}\n\n`;
      subscriber.push(frame);
    }
  }

  onLifecycle(action: LifecycleAction, port: number | null): void {
    const id = ++this.seq;
    if (this.subscribers.size === 0) return;
    let frame: string | undefined;
    for (const subscriber of this.subscribers) {
      const filter = subscriber.filter;
      if (!filter.lifecycle || (filter.port !== null && port !== null && filter.port !== port)) continue;
      frame ??= `id: ${id}\nevent: imposter\ndata: ${JSON.stringify({ action, port })}\n\n`;
      subscriber.push(frame);
    }
  }

  /** Buffer figures per subscriber, for tests and diagnostics. */
  stats(): EventHubStats {
    return { subscribers: this.subscribers.size, seq: this.seq, perSubscriber: [...this.subscribers].map((s) => s.stats()) };
  }

  /** Ends every stream and stops the heartbeat. */
  close(): void {
    clearInterval(this.heartbeat);
    for (const subscriber of this.subscribers) subscriber.close();
    this.subscribers.clear();
  }
}

import type { ServerResponse } from 'node:http';
import type { RequestClause } from '../../engine/manager/index.js';

export interface EventFilter {
  requests: boolean;
  lifecycle: boolean;
  /** Only events of this imposter (lifecycle `allDeleted` concerns every port). */
  port: number | null;
  /** `match=` clauses, AND-ed, applied to request events. */
  clauses: RequestClause[];
}

export interface BufferLimits {
  /** Frames waiting for the socket, at most. */
  maxQueuedEvents: number;
  /** Bytes of frames waiting for the socket, at most. */
  maxQueuedBytes: number;
}

export interface SubscriberStats {
  queuedEvents: number;
  queuedBytes: number;
  /** Bytes node:http holds for the socket (written but not yet flushed to the kernel). */
  writableBytes: number;
  peakQueuedBytes: number;
  peakWritableBytes: number;
  missedTotal: number;
}

function laggedFrame(missed: number): string {
  return `event: lagged\ndata: {"missed":${missed}}\n\n`;
}

/**
 * One `text/event-stream` client. Frames queue here only while the socket pushes back (`write`
 * returned false), up to the limits; beyond them events are dropped and counted, and the client
 * gets `lagged {missed}` in their place once there is room again. Memory per client is thus
 * bounded by the limits plus one flushed batch, whatever the client does.
 */
export class SseSubscriber {
  private queue: string[] = [];
  private queuedBytes = 0;
  private missed = 0;
  private blocked = false;
  private scheduled = false;
  private closed = false;
  private peakQueuedBytes = 0;
  private peakWritableBytes = 0;
  private missedTotal = 0;

  constructor(
    private readonly response: ServerResponse,
    readonly filter: EventFilter,
    private readonly limits: BufferLimits,
  ) {}

  /** Queues an event frame, or counts it missed when the buffer is full. */
  push(frame: string): void {
    if (this.closed) return;
    if (this.queue.length >= this.limits.maxQueuedEvents || this.queuedBytes + frame.length > this.limits.maxQueuedBytes) {
      this.missed += 1;
      this.missedTotal += 1;
      return;
    }
    this.takeLagged();
    this.enqueue(frame);
  }

  /** A heartbeat comment; skipped (not missed) when the buffer is full, since data is pending anyway. */
  comment(text: string): void {
    if (this.closed || this.blocked || this.queue.length > 0) return;
    this.enqueue(text);
  }

  /** Writes a frame before anything else (the `hello`). */
  writeNow(frame: string): void {
    if (!this.response.write(frame)) this.block();
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.queuedBytes = 0;
  }

  stats(): SubscriberStats {
    return {
      queuedEvents: this.queue.length,
      queuedBytes: this.queuedBytes,
      writableBytes: this.response.writableLength,
      peakQueuedBytes: this.peakQueuedBytes,
      peakWritableBytes: this.peakWritableBytes,
      missedTotal: this.missedTotal,
    };
  }

  private takeLagged(): void {
    if (this.missed === 0) return;
    const frame = laggedFrame(this.missed);
    this.missed = 0;
    this.enqueue(frame);
  }

  private enqueue(frame: string): void {
    this.queue.push(frame);
    this.queuedBytes += frame.length;
    if (this.queuedBytes > this.peakQueuedBytes) this.peakQueuedBytes = this.queuedBytes;
    if (!this.scheduled && !this.blocked) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** One write per event-loop turn for everything queued (batches bursts into one syscall). */
  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.closed || this.blocked) return;
    // Drops pending go out now, after the frames queued before them, not at the next event (which may
    // never come): a write accepted at once (Node 22+ buffers 64 KiB before pushing back) must carry them.
    if (this.missed > 0) {
      this.queue.push(laggedFrame(this.missed));
      this.missed = 0;
    }
    if (this.queue.length === 0) return;
    const chunk = this.queue.length === 1 ? this.queue[0]! : this.queue.join('');
    this.queue = [];
    this.queuedBytes = 0;
    const accepted = this.response.write(chunk);
    if (this.response.writableLength > this.peakWritableBytes) this.peakWritableBytes = this.response.writableLength;
    if (!accepted) this.block();
  };

  private block(): void {
    this.blocked = true;
    this.response.once('drain', () => {
      this.blocked = false;
      this.flush();
    });
  }
}

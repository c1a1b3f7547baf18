import type { OutgoingHeaders, ResponseSink } from '../transport/index.js';
import type { RecordedRequest } from '../serve/index.js';
import type { ThreadReport } from './protocol.js';

type Finished = Extract<ThreadReport, { t: 'recs' }>['records'][number];

/**
 * An engine thread's finished records, posted to the main thread (the journal's owner) in one message
 * per event-loop turn rather than one per request. A response whose record waits in the batch is
 * written only once the batch is posted, so an admin call made after the client read it finds it.
 */
export class RecordBatch {
  private records: Finished[] = [];
  private held: Array<() => void> = [];
  private scheduled = false;

  constructor(private readonly post: (report: ThreadReport) => void) {}

  add(id: number, record: RecordedRequest, notify: boolean): void {
    this.records.push({ id, record, notify });
    if (this.scheduled) return;
    this.scheduled = true;
    // After this turn's I/O callbacks: every request read in it shares the message.
    setImmediate(this.flush);
  }

  /** Runs `write` now when no record waits, else right after the batch is posted (in order). */
  hold(write: () => void): void {
    if (this.records.length === 0) write();
    else this.held.push(write);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const records = this.records;
    const held = this.held;
    this.records = [];
    this.held = [];
    if (records.length > 0) this.post({ t: 'recs', records });
    for (const write of held) write();
  };
}

/** A recording exchange's sink on an engine thread: what it writes waits for its record to be posted. */
export class HeldSink implements ResponseSink {
  constructor(
    private readonly inner: ResponseSink,
    private readonly batch: RecordBatch,
  ) {}

  get protocol(): ResponseSink['protocol'] {
    return this.inner.protocol;
  }

  private hold(write: () => void): void {
    this.batch.hold(() => {
      try {
        write();
      } catch {
        // Socket gone mid-write: its connection is reset instead (as the pipeline does for a direct write).
        this.inner.reset();
      }
    });
  }

  send(statusCode: number, headers: OutgoingHeaders, body: Buffer): void {
    this.hold(() => this.inner.send(statusCode, headers, body));
  }

  reset(): void {
    this.hold(() => this.inner.reset());
  }

  closeEmpty(): void {
    this.hold(() => this.inner.closeEmpty());
  }

  writeRawAndClose(bytes: Buffer): void {
    this.hold(() => this.inner.writeRawAndClose(bytes));
  }
}

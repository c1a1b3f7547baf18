/**
 * Messages gathered while the caller's code runs and posted together: a message's fixed cost (a
 * structured clone and a wake-up of the other thread) is paid once per batch, not once per message.
 * `microtask` posts when the current task ends (lowest latency); `turn` at the end of the event-loop
 * turn (every I/O callback of a poll phase in one batch); `none` posts each message at once.
 */
export type BatchTiming = 'microtask' | 'turn' | 'none';

/** What gathers one batch; `take` returns what is posted and starts an empty batch. */
export interface Outbox<M> {
  add(message: M): void;
  readonly empty: boolean;
  take(): unknown;
}

/** The default batch: an array of the messages. */
export class ArrayOutbox<M> implements Outbox<M> {
  private items: M[] = [];

  add(message: M): void {
    this.items.push(message);
  }

  get empty(): boolean {
    return this.items.length === 0;
  }

  take(): M[] {
    const items = this.items;
    this.items = [];
    return items;
  }
}

/** Calls `flush` once after the messages of a task (microtask) or an event-loop turn, however many asked. */
export class PerTurn {
  private scheduled = false;

  constructor(
    private readonly timing: BatchTiming,
    private readonly flush: () => void,
  ) {}

  schedule(): void {
    if (this.timing === 'none') {
      this.flush();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    if (this.timing === 'microtask') queueMicrotask(this.run);
    else setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    this.flush();
  };
}

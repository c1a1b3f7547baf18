/**
 * Proxy recordings under per-core (docs/responses.md): engine threads call the upstream themselves,
 * and the stubs' owner (the main thread's imposter) applies what they recorded, once and in the order
 * it arrives, then republishes the plan, so the next request on every thread sees the new stub. For
 * proxyOnce the owner also joins requests in flight across threads: the first claim for a proxy
 * response and predicates gets a ticket (its thread calls the upstream and records); later claims, and
 * the owner's own requests, wait for that recording and replay it.
 */
import { recordingFor, type OnceRecording, type ProxyMode, type ProxyRecorder, type StubStore } from '../respond/index.js';
import type { ProxyRecording } from './protocol.js';

/** A proxy response as engine threads name it: the owner's stub key (ImposterPlan) and its response index. */
export type ResponseAt = ProxyRecording['at'];

/** The owner's answer to a claim: record (ticket 0: nothing to join, the stub is gone), or replay a recording. */
export type Claim = { ticket: number } | { replay: Record<string, unknown> };

type Recorded = Record<string, unknown> | undefined;

export class ProxyOwner {
  /** Flights an engine thread records for everyone, by ticket: `finish` hands its recording to the waiters. */
  private readonly tickets = new Map<number, { slot: number; finish(recorded: Recorded): void }>();
  private nextTicket = 1;

  constructor(
    /** The owner's own recorder (stores into its stubs, joins flights on this thread). */
    private readonly recorder: ProxyRecorder,
    private readonly stubs: StubStore,
    /** The owner's response object at `at`, or undefined when that stub is gone. */
    private readonly locate: (at: ResponseAt) => object | undefined,
    /** A proxyAlways recording that could not be stored: its thread answered long ago, nobody else hears of it. */
    private readonly storeFailed: (error: unknown) => void = () => undefined,
  ) {}

  /** Runs engine thread `slot`'s call (ThreadProxyRecorder's side). */
  call(op: string, args: unknown[], slot: number): Promise<unknown> {
    if (op === 'claim') return this.claim(args[0] as ResponseAt, args[1] as unknown[], slot);
    if (op === 'store') {
      const [at, mode, predicates, recorded, ticket] = args as [ResponseAt, ProxyMode, unknown[], Record<string, unknown>, number];
      return this.store(at, mode, predicates, recorded, ticket);
    }
    if (op === 'release') {
      this.finish(args[0] as number, undefined);
      return Promise.resolve(undefined);
    }
    return Promise.reject(new Error(`unknown proxy recorder operation '${op}'`));
  }

  /** proxyAlways recordings received ahead of an earlier one (another thread's, still on its way), by sequence number. */
  private readonly early = new Map<number, ProxyRecording>();
  private nextSeq = 0;

  /**
   * A proxyAlways recording an engine thread posted (it did not wait: nothing joins proxyAlways
   * requests), applied in the order the threads made them.
   */
  recorded(recording: ProxyRecording): void {
    this.early.set(recording.seq, recording);
    for (let next = this.early.get(this.nextSeq); next; next = this.early.get(this.nextSeq)) {
      this.early.delete(this.nextSeq);
      this.nextSeq += 1;
      this.store(next.at, next.mode, next.predicates, next.recorded, 0).catch(this.storeFailed);
    }
  }

  /** Engine thread `slot` is gone: the flights it was recording end with nothing stored (a waiter tries itself). */
  threadLost(slot: number): void {
    for (const [ticket, held] of this.tickets) if (held.slot === slot) this.finish(ticket, undefined);
  }

  private claim(at: ResponseAt, predicates: unknown[], slot: number): Promise<Claim> {
    const source = this.locate(at);
    if (!source) return Promise.resolve({ ticket: 0 });
    // Recorded while the claim was on its way: the thread matched before it saw the new stub.
    const recorded = recordingFor(this.stubs, source, predicates);
    if (recorded) return Promise.resolve({ replay: structuredClone(recorded) });
    return new Promise((answer) => {
      const record = (): Promise<OnceRecording<undefined>> =>
        new Promise((done) => {
          const ticket = this.nextTicket++;
          this.tickets.set(ticket, { slot, finish: (recorded) => done({ made: undefined, recorded }) });
          answer({ ticket });
        });
      void this.recorder.once(source, predicates, record).then((outcome) => {
        if ('replay' in outcome) answer({ replay: outcome.replay });
      });
    });
  }

  private async store(at: ResponseAt, mode: ProxyMode, predicates: unknown[], recorded: Record<string, unknown>, ticket: number): Promise<boolean> {
    const source = this.locate(at);
    let stored = false;
    try {
      stored = source !== undefined && (await this.recorder.store(source, mode, predicates, recorded));
    } finally {
      this.finish(ticket, stored ? recorded : undefined);
    }
    return stored;
  }

  private finish(ticket: number, recorded: Recorded): void {
    const held = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    held?.finish(recorded);
  }
}

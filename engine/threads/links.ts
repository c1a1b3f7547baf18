/**
 * Direct channels between the threads of two hosts on the main thread: the per-core runtime's engine
 * threads (consumers) and the script pools' workers (providers). Main only introduces them: for each
 * pair it makes a MessageChannel and hands one port to each side, when either starts (a restarted
 * worker is introduced again under a new generation). Calls then go thread to thread; the main
 * thread's event loop carries none of them.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { WaitingThreads } from './shared-count.js';

/** Which worker a link reaches: its pool, its id there (stable across restarts) and its generation. */
export interface LinkOffer {
  pool: string;
  worker: number;
  generation: number;
  /** The previous generation was replaced with nothing lost (stuck or grown): calls it owed go to this one. */
  retry: boolean;
  /** The worker's SharedCount of calls it owes, claimed by every thread that calls it (the pool places and dispatches by it). */
  owed: SharedArrayBuffer;
  /** The worker's SharedQuiet: callers extend it to their deadlines (plus grace), so its silence meanwhile is not a hang. */
  quiet: SharedArrayBuffer;
  /** The pool's SharedCount of threads whose calls wait for a worker (a pool whose dispatch hands workers over fairly). */
  waiting?: SharedArrayBuffer;
}

interface Provider {
  offer: LinkOffer;
  /** Hands the worker its end of a new channel. */
  attach(port: MessagePort): void;
  /** A consumer says the worker ignored a deadline past its grace (its calls the pool cannot see). */
  stuck(generation: number): void;
}

type Consumer = (offer: LinkOffer, port: MessagePort) => void;

export class LinkBoard {
  private readonly providers = new Map<string, Provider>();
  private readonly consumers = new Set<Consumer>();
  private readonly stallHandlers = new Map<string, () => void>();

  /** What a pool does when a consumer's calls wait behind its busy workers (grow, say). */
  onStall(pool: string, handler: () => void): void {
    this.stallHandlers.set(pool, handler);
  }

  /** A consumer's report that its calls to `pool` wait behind busy workers. */
  stalled(pool: string): void {
    this.stallHandlers.get(pool)?.();
  }

  /** A worker (re)started: every consumer gets a channel to it. */
  provide(offer: LinkOffer, attach: Provider['attach'], stuck: Provider['stuck']): void {
    const provider = { offer, attach, stuck };
    this.providers.set(`${offer.pool}/${offer.worker}`, provider);
    for (const consumer of this.consumers) this.connect(provider, consumer);
  }

  /** The worker is gone for good (a grown pool shrank); consumers see its ports close. */
  withdraw(pool: string, worker: number): void {
    this.providers.delete(`${pool}/${worker}`);
  }

  /** A consumer thread started: a channel to every worker now and to each one started later. Returns its removal. */
  consume(consumer: Consumer): () => void {
    this.consumers.add(consumer);
    for (const provider of this.providers.values()) this.connect(provider, consumer);
    return () => this.consumers.delete(consumer);
  }

  /** Consumer thread `slot` is gone: it no longer counts as waiting for any pool's workers. */
  threadLost(slot: number): void {
    for (const { offer } of this.providers.values()) if (offer.waiting) WaitingThreads.clear(offer.waiting, slot);
  }

  /** A consumer's report that `pool`'s worker of `generation` is stuck past a deadline. */
  stuck(pool: string, worker: number, generation: number): void {
    this.providers.get(`${pool}/${worker}`)?.stuck(generation);
  }

  private connect(provider: Provider, consumer: Consumer): void {
    const { port1, port2 } = new MessageChannel();
    provider.attach(port1);
    consumer(provider.offer, port2);
  }
}

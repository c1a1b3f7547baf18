/**
 * An engine thread's side of its direct links to one script pool's workers (engine/threads/links.ts):
 * calls batched per event-loop turn on the worker's link, answered on it, each released at its
 * deadline by a timer here as the pool's host does on main. A run's `ctx.state` questions go from the
 * worker to main, which owns every imposter's store (they name the imposter).
 *
 * A call made before the worker says it serves on the link (LINK_HELLO, once its cold start is done)
 * is held here and its deadline starts at the hello, as the host does for its own calls (a cold start
 * on a loaded machine takes seconds and is not the script's time); STARTUP_ALLOWANCE_MS bounds the wait.
 *
 * When a worker ignores a deadline by more than GRACE_MS, this thread cannot replace it (main owns
 * it): it reports it, and main replaces it. A replaced worker's link is superseded by the next
 * generation's: the calls it still owed go there (`retry`: it was stuck or grown) or fail as the
 * host's fault (it crashed), exactly as the pool's own calls on main.
 */
import type { MessagePort } from 'node:worker_threads';
import { CallTable, PerTurn, SharedCount, SharedQuiet, type LinkOffer, type Outbox } from '../../threads/index.js';

/** How long past a released call's deadline a silent worker is given before it is reported stuck. */
export const LINK_GRACE_MS = 1000;
/**
 * How long a call waits for its worker to start before its own deadline clock starts anyway (here and
 * in the pool's host on main): a cold start (spawn, engine load; seconds on a loaded machine) is not the
 * script's time, but a worker that never gets ready must not hold a caller for ever.
 */
export const STARTUP_ALLOWANCE_MS = 30_000;

/** What a worker posts first on each link it is given: it serves from now on. */
export const LINK_HELLO = Object.freeze({ type: 'link-hello' as const });

function isHello(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === LINK_HELLO.type;
}

/** One call as the links hold it; the pool's client says how it is answered. */
export interface LinkedCall<Item> {
  readonly id: number;
  /** Epoch ms: the caller is answered (`expire`) here at the latest. */
  deadline: number;
  /** Made before the worker served: its deadline (and the item's) starts at `now` instead. */
  startClock(now: number): void;
  /** What is posted to the worker (again on a retry). */
  readonly item: Item;
  /** The deadline passed: answer the caller now; a late reply is ignored. */
  expire(): void;
  /** The worker is gone: answer the caller with the host's failure. */
  fail(reason: string): void;
  /** The worker owes it no more (it answered, or it is gone): after `expire` too. */
  done?(): void;
}

/** A reply from a worker: the call it answers and how. */
export interface LinkReply<Call> {
  id: number;
  apply(call: Call): void;
}

export interface WorkerLinksOptions<Item, Call> {
  outbox: () => Outbox<Item>;
  /** The replies in a message from a worker. */
  replies(message: unknown): Array<LinkReply<Call>>;
  /** The worker of `generation` ignored a deadline past its grace: main should replace it. */
  stuck(worker: number, generation: number): void;
}

interface Held<Call> {
  call: Call;
  released: boolean;
  /** Made before the worker's hello: its deadline starts at the hello. */
  cold: boolean;
  timer: NodeJS.Timeout;
}

class Link<Item, Call extends LinkedCall<Item>> {
  readonly pending = new CallTable<Held<Call>>();
  private outbox: Outbox<Item>;
  private readonly batching: PerTurn;
  private port: MessagePort | undefined;
  /** The worker said hello on this port: it serves, and calls are posted. */
  private live = false;
  /** Calls waiting for the hello (not in the outbox: a cold call's deadline is stamped then). */
  private unsent: Array<Held<Call>> = [];
  generation = 0;
  /** What the worker owes every thread (the pool's count, from its offer). */
  owed: SharedCount | undefined;
  private quiet: SharedQuiet | undefined;

  constructor(
    readonly worker: number,
    private readonly options: WorkerLinksOptions<Item, Call>,
  ) {
    this.outbox = options.outbox();
    this.batching = new PerTurn('turn', () => {
      if (this.port && !this.outbox.empty) this.port.postMessage(this.outbox.take());
    });
  }

  /** Its worker serves on this link (it said hello). */
  get connected(): boolean {
    return this.live;
  }

  /** The worker's generation `offer.generation` is reached through `port` from now on. */
  attach(offer: LinkOffer, port: MessagePort): void {
    // Calls made before the first link arrived, or owed by a stuck or grown predecessor, go to this one.
    const retry = offer.retry || this.port === undefined;
    const owed = [...this.pending.values()].filter((held) => !held.released);
    for (const held of this.pending.values()) if (held.released) clearTimeout(held.timer);
    this.pending.clear();
    this.unsent = [];
    this.detach();
    this.generation = offer.generation;
    this.owed = new SharedCount(offer.owed);
    this.quiet = new SharedQuiet(offer.quiet);
    this.port = port;
    this.outbox = this.options.outbox();
    port.on('message', (message: unknown) => (isHello(message) ? this.hello(port) : this.received(message)));
    // The worker is gone with no successor yet (it crashed, or keeps dying at start): what it owed fails now.
    port.on('close', () => {
      if (this.port !== port) return;
      this.detach();
      this.failAll('script worker exited');
    });
    port.unref();
    for (const held of owed) {
      if (retry) this.send(held);
      else {
        clearTimeout(held.timer);
        held.call.fail('script worker was replaced');
        held.call.done?.();
      }
    }
  }

  call(call: Call): void {
    const cold = !this.live;
    const wait = Math.max(0, call.deadline - Date.now()) + (cold ? STARTUP_ALLOWANCE_MS : 0);
    const held: Held<Call> = { call, released: false, cold, timer: setTimeout(() => this.release(held), wait) };
    this.send(held);
  }

  private send(held: Held<Call>): void {
    this.pending.set(held.call.id, held);
    // Held by the link's port while it waits for the hello: the process does not end under a caller.
    this.port?.ref();
    if (this.live) this.post(held);
    else this.unsent.push(held);
  }

  private post(held: Held<Call>): void {
    // The worker may be silent while it runs this call: its host must not take that for a hang.
    this.quiet?.extend(held.call.deadline + LINK_GRACE_MS);
    this.outbox.add(held.call.item);
    this.batching.schedule();
  }

  /** The worker on `port` serves: calls made meanwhile are posted, cold ones with their deadline starting now. */
  private hello(port: MessagePort): void {
    if (this.port !== port || this.live) return;
    this.live = true;
    const now = Date.now();
    const unsent = this.unsent;
    this.unsent = [];
    for (const held of unsent) {
      if (this.pending.get(held.call.id) !== held || held.released) continue;
      if (held.cold) {
        held.cold = false;
        held.call.startClock(now);
        clearTimeout(held.timer);
        held.timer = setTimeout(() => this.release(held), Math.max(0, held.call.deadline - now));
      }
      this.post(held);
    }
  }

  private release(held: Held<Call>): void {
    if (this.pending.get(held.call.id) !== held) return;
    held.released = true;
    held.call.expire();
    if (!this.live) {
      // Never posted (the worker did not serve in time; before the hello every call is unsent): nothing owes it, nothing to watch.
      this.pending.delete(held.call.id);
      this.unsent = this.unsent.filter((other) => other !== held);
      held.call.done?.();
      if (this.pending.size === 0) this.port?.unref();
      return;
    }
    const generation = this.generation;
    held.timer = setTimeout(() => {
      if (this.pending.get(held.call.id) === held && this.generation === generation) this.options.stuck(this.worker, generation);
    }, LINK_GRACE_MS);
    held.timer.unref();
  }

  private received(message: unknown): void {
    for (const reply of this.options.replies(message)) {
      const held = this.pending.get(reply.id);
      if (!held) continue;
      this.pending.delete(reply.id);
      clearTimeout(held.timer);
      if (!held.released) reply.apply(held.call);
      held.call.done?.();
    }
    if (this.pending.size === 0) this.port?.unref();
  }

  private failAll(reason: string): void {
    for (const held of this.pending.values()) {
      clearTimeout(held.timer);
      if (!held.released) held.call.fail(reason);
      held.call.done?.();
    }
    this.pending.clear();
    this.unsent = [];
  }

  private detach(): void {
    this.port?.close();
    this.port = undefined;
    this.live = false;
  }

  close(reason: string): void {
    this.detach();
    this.failAll(reason);
  }
}

/** This thread's links to the workers of one pool, by worker id. */
export class WorkerLinks<Item, Call extends LinkedCall<Item>> {
  private readonly links = new Map<number, Link<Item, Call>>();

  constructor(private readonly options: WorkerLinksOptions<Item, Call>) {}

  attach(offer: LinkOffer, port: MessagePort): void {
    let link = this.links.get(offer.worker);
    if (!link) {
      link = new Link(offer.worker, this.options);
      this.links.set(offer.worker, link);
    }
    link.attach(offer, port);
  }

  /** Posts a call to `worker` (held until its link arrives when it has none yet); answered through the call. */
  call(worker: number, call: Call): void {
    let link = this.links.get(worker);
    if (!link) {
      link = new Link(worker, this.options);
      this.links.set(worker, link);
    }
    link.call(call);
  }

  /** Claims a connected worker that owes no thread anything (one batch at a time per worker); undefined when all are busy. */
  claimIdle(): { worker: number; owed: SharedCount } | undefined {
    for (const link of this.links.values()) {
      if (link.connected && link.owed?.tryClaim(1)) return { worker: link.worker, owed: link.owed };
    }
    return undefined;
  }

  /** What `worker` owes every thread (undefined before its first link arrived). */
  owedBy(worker: number): SharedCount | undefined {
    return this.links.get(worker)?.owed;
  }

  close(reason: string): void {
    for (const link of this.links.values()) link.close(reason);
    this.links.clear();
  }
}

/**
 * An engine thread's proxy recorder: recordings go to the stubs' owner on the main thread (ProxyOwner),
 * which applies them in arrival order and republishes the plan before this thread writes the response.
 * proxyOnce requests in flight are joined here first (one claim per thread and predicates), then across
 * threads by the owner.
 */
import { canonicalJson } from '../model/index.js';
import { recordOnce, type OnceOutcome, type OnceRecording, type ProxyMode, type ProxyRecorder } from '../respond/index.js';
import type { LiveStub } from '../serve/index.js';
import type { Claim, ResponseAt } from './proxy-owner.js';
import type { ProxyRecording } from './protocol.js';

/** One call to the owner's ProxyOwner (engine-thread.ts posts it and settles it with main's answer). */
export type ProxyCaller = (op: string, args: unknown[]) => Promise<unknown>;

export class ThreadProxyRecorder implements ProxyRecorder {
  /** Tickets this thread holds for a flight it records for every thread, by proxy response and canonical predicates. */
  private readonly held = new WeakMap<object, Map<string, number>>();

  constructor(
    private readonly stubs: readonly LiveStub[],
    /** The owner's key of each stub, in plan order. */
    private readonly keys: readonly number[],
    private readonly call: ProxyCaller,
    /** Posts a proxyAlways recording to the owner at once (before the response is written). */
    private readonly post: (recording: Omit<ProxyRecording, 'seq'>) => void,
  ) {}

  async store(source: object, mode: ProxyMode, predicates: unknown[], recorded: Record<string, unknown>): Promise<boolean> {
    const at = this.at(source);
    const ticket = this.take(source, predicates);
    if (!at) return false;
    // proxyAlways adds after the proxy's stub, where no request that reaches the proxy looks: this
    // thread answers without waiting (even while main is busy); admin reads take pending recordings first.
    if (mode === 'proxyAlways') {
      this.post({ at, mode, predicates, recorded });
      return true;
    }
    return (await this.call('store', [at, mode, predicates, recorded, ticket])) === true;
  }

  once<T>(source: object, predicates: unknown[], record: () => Promise<OnceRecording<T>>): Promise<OnceOutcome<T>> {
    return recordOnce(source, predicates, async (): Promise<OnceRecording<T>> => {
      const at = this.at(source);
      const claim = at ? ((await this.call('claim', [at, predicates])) as Claim) : { ticket: 0 };
      if ('replay' in claim) return claim;
      this.hold(source, predicates, claim.ticket);
      try {
        return await record();
      } finally {
        // Nothing was stored (the upstream failed): the owner lets the next waiter try.
        const left = this.take(source, predicates);
        if (left) void this.call('release', [left]);
      }
    });
  }

  /** Where `source` is in this thread's plan, as the owner names it. */
  private at(source: object): ResponseAt | undefined {
    for (let i = 0; i < this.stubs.length; i += 1) {
      const response = this.stubs[i].cycle.responses.indexOf(source as never);
      if (response >= 0) return { stub: this.keys[i], response };
    }
    return undefined;
  }

  private hold(source: object, predicates: unknown[], ticket: number): void {
    if (ticket === 0) return;
    let byKey = this.held.get(source);
    if (!byKey) this.held.set(source, (byKey = new Map()));
    byKey.set(canonicalJson(predicates), ticket);
  }

  /** The ticket held for `source` and `predicates` (0: none), no longer held. */
  private take(source: object, predicates: unknown[]): number {
    const byKey = this.held.get(source);
    if (!byKey?.size) return 0;
    const key = canonicalJson(predicates);
    const ticket = byKey.get(key) ?? 0;
    byKey.delete(key);
    return ticket;
  }
}

/**
 * `_svc.script` as an engine thread runs it (per-core): a Rhai run goes straight to a script worker on
 * this thread's link to it, a JavaScript run to the imposter's sandbox worker (LinkedJsHost). Any worker
 * may run any imposter's Rhai script: state lives in the imposter's flow store, which the run's
 * `ctx.state` calls reach on main (its owner) straight from the worker.
 *
 * Dispatch follows the runner's rules on main, through counts every thread shares: a worker serves
 * one batch at a time (its busy count, claimed by whichever thread posts), one imposter's runs that
 * wait here (up to runner.ts's MAX_BATCH), and an imposter holds at most its share of workers at once (its running
 * count, from its plan). Runs wait here in arrival order, looking again
 * every POLL_MS while other threads hold the workers; when they wait STALL_MS main hears of it and
 * grows the pool as for its own. Deadlines are held here as the runner holds them on main.
 */
import type { MessagePort } from 'node:worker_threads';
import { ArrayOutbox, SharedCount, WaitingThreads, type LinkOffer } from '../../threads/index.js';
import type { JsScriptHost } from '../js/index.js';
import { type LogLevel, WorkerLinks, type LinkedCall } from '../shared/index.js';
import { POLL_MS, runJavaScript, runMessage, STALL_MS, takeBatch, type ScriptRun, type ScriptRunner } from './runner.js';
import type { DoneMessage, RunMessage, RunOutcome } from './protocol.js';

export interface LinkedSvcRunnerOptions {
  log: (level: LogLevel, message: string) => void;
  javascript: () => JsScriptHost;
  /** The worker of `generation` ignored a deadline past its grace (main replaces it). */
  stuck(worker: number, generation: number): void;
  /** Runs have waited STALL_MS behind busy workers (main may grow the pool). */
  stalled(): void;
  /** This engine thread's slot (1..N-1): its word in the pool's WaitingThreads. */
  slot: number;
}

interface Call extends LinkedCall<RunMessage> {
  resolve(outcome: RunOutcome): void;
}

interface Waiting {
  call: Call;
  scope: number;
  timer: NodeJS.Timeout;
}

/** Run ids of this thread (the worker answers each link by its own ids). */
let nextId = 1;

export class LinkedSvcRunner implements ScriptRunner {
  private readonly links: WorkerLinks<RunMessage, Call>;
  /** Each imposter's running count and share, from its plan. */
  private readonly shares = new Map<number, { running: SharedCount; limit: number }>();
  private readonly queue: Waiting[] = [];
  private pollTimer: NodeJS.Timeout | undefined;
  /** Since when runs wait behind busy workers (0: they do not). */
  private waitingSince = 0;
  /** The pool's record of threads whose runs wait holding no worker (from its first offer): a freed worker goes to them first. */
  private waiters: WaitingThreads | undefined;
  /** Workers holding a batch of this thread's. */
  private holding = 0;

  constructor(private readonly options: LinkedSvcRunnerOptions) {
    this.links = new WorkerLinks<RunMessage, Call>({
      outbox: () => new ArrayOutbox<RunMessage>(),
      replies: (message) => {
        // A batch's answers (engine/script/svc/worker.ts); the link's hello is not one.
        if (!Array.isArray(message)) return [];
        return (message as DoneMessage[]).map((done) => {
          for (const [level, text] of done.logs) options.log(level, text);
          return { id: done.id, apply: (call: Call) => call.resolve(done.outcome) };
        });
      },
      stuck: options.stuck,
    });
  }

  /** A link to a script worker (new, or its next generation). */
  attach(offer: LinkOffer, port: MessagePort): void {
    if (!this.waiters && offer.waiting) this.waiters = new WaitingThreads(offer.waiting, this.options.slot);
    this.links.attach(offer, port);
    this.dispatch();
  }

  /** Imposter `scope`'s running count and share (its plan). */
  shareAt(scope: number, share: { count: SharedArrayBuffer; limit: number }): void {
    this.shares.set(scope, { running: new SharedCount(share.count), limit: share.limit });
  }

  run(run: ScriptRun): Promise<RunOutcome> {
    if (run.engine === 'javascript') return runJavaScript(this.options.javascript(), run);
    const id = nextId++;
    const deadline = Date.now() + run.timeoutMs;
    // `scope`: the worker sends the script's `ctx.state` straight to main, which owns every imposter's store.
    const message = runMessage(run, id, deadline);
    message.scope = run.scope;
    return new Promise((resolve) => {
      const call: Call = {
        id,
        deadline,
        item: message,
        startClock(now) {
          this.deadline = message.deadline = now + run.timeoutMs;
        },
        resolve,
        expire: () => resolve({ ok: false, errorType: 'timeout', message: `script exceeded its ${run.timeoutMs} ms deadline` }),
        fail: (reason) => resolve({ ok: false, errorType: 'host', message: reason }),
      };
      const waiting: Waiting = { call, scope: run.scope, timer: setTimeout(() => this.expireWaiting(waiting), run.timeoutMs) };
      this.queue.push(waiting);
      this.dispatch();
    });
  }

  /** The deadline passed before a worker was free: answered now, never posted. */
  private expireWaiting(waiting: Waiting): void {
    const at = this.queue.indexOf(waiting);
    if (at < 0) return;
    this.queue.splice(at, 1);
    waiting.call.expire();
  }

  /** Posts waiting runs to idle workers, oldest first, skipping imposters at their share. */
  private dispatch(): void {
    let blocked = false;
    for (let i = 0; i < this.queue.length; ) {
      const waiting = this.queue[i]!;
      const share = this.shares.get(waiting.scope);
      if (share && share.running.value >= share.limit) {
        blocked = true;
        i++;
        continue;
      }
      const idle = this.links.claimIdle();
      if (!idle) {
        blocked = true;
        this.stall();
        break;
      }
      if (share && !share.running.tryClaim(share.limit)) {
        idle.owed.release();
        blocked = true;
        i++;
        continue;
      }
      // The imposter's waiting runs go together; the worker and the share are freed when all are done.
      const batch = takeBatch(this.queue, i, (queued) => queued.scope);
      let owed = batch.length;
      this.holding++;
      const done = (): void => {
        if (--owed > 0) return;
        this.holding--;
        idle.owed.release();
        share?.running.release();
        // Another thread's runs wait: it takes the worker at its next look, not this thread again at once.
        if (this.waiters && this.waiters.others > 0) this.pollSoon();
        else this.dispatch();
      };
      for (const each of batch) {
        clearTimeout(each.timer);
        each.call.done = done;
        this.links.call(idle.worker, each.call);
      }
    }
    const waits = blocked && this.queue.length > 0;
    // Starved only while holding no worker: runs behind this thread's own batch go in its next one.
    this.waiters?.set(waits && this.holding === 0);
    if (!waits) this.waitingSince = 0;
    else this.pollSoon();
  }

  private pollSoon(): void {
    if (this.pollTimer) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      this.dispatch();
    }, POLL_MS);
  }

  /** Every worker is busy: after STALL_MS of that, main hears of it (once per stall). */
  private stall(): void {
    const now = Date.now();
    if (this.waitingSince === 0) this.waitingSince = now;
    else if (now - this.waitingSince >= STALL_MS) {
      this.waitingSince = now;
      this.options.stalled();
    }
  }

  close(): void {
    clearTimeout(this.pollTimer);
    this.waiters?.set(false);
    for (const waiting of this.queue.splice(0)) {
      clearTimeout(waiting.timer);
      waiting.call.fail('script runner closed');
    }
    this.links.close('script runner closed');
  }
}

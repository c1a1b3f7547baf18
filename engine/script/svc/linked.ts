/**
 * `_svc.script` as an engine thread runs it (per-core): a Rhai run goes straight to a script worker on
 * this thread's link to it (the one this thread owes the fewest answers), a JavaScript run to the
 * imposter's sandbox worker (LinkedJsHost). Any worker may run any imposter's Rhai script: state lives
 * in the flow store, which the run's `ctx.state` calls reach through this thread (its store: the
 * owner's in-memory one by message, or redis). Deadlines are held here as the runner holds them on main.
 */
import type { MessagePort } from 'node:worker_threads';
import { ArrayOutbox, type LinkOffer } from '../../threads/index.js';
import type { JsScriptHost } from '../js/index.js';
import type { LogLevel } from '../ctx.js';
import { WorkerLinks, type LinkedCall } from '../worker-links.js';
import { runJavaScript, type ScriptRun, type ScriptRunner } from './runner.js';
import type { DoneMessage, RunMessage, RunOutcome } from './protocol.js';

export interface LinkedSvcRunnerOptions {
  log: (level: LogLevel, message: string) => void;
  javascript: () => JsScriptHost;
  /** The worker of `generation` ignored a deadline past its grace (main replaces it). */
  stuck(worker: number, generation: number): void;
}

interface Call extends LinkedCall<RunMessage> {
  resolve(outcome: RunOutcome): void;
}

/** Run ids of this thread (the worker answers each link by its own ids). */
let nextId = 1;

export class LinkedSvcRunner implements ScriptRunner {
  private readonly links: WorkerLinks<RunMessage, Call>;

  constructor(private readonly options: LinkedSvcRunnerOptions) {
    this.links = new WorkerLinks<RunMessage, Call>({
      outbox: () => new ArrayOutbox<RunMessage>(),
      replies: (message) => {
        const done = message as DoneMessage;
        if (done.type !== 'done') return [];
        for (const [level, text] of done.logs) options.log(level, text);
        return [{ id: done.id, apply: (call: Call) => call.resolve(done.outcome) }];
      },
      stuck: options.stuck,
      stateFailed: (message) => options.log('error', message),
    });
  }

  /** A link to a script worker (new, or its next generation). */
  attach(offer: LinkOffer, port: MessagePort): void {
    this.links.attach(offer, port);
  }

  run(run: ScriptRun): Promise<RunOutcome> {
    if (run.engine === 'javascript') return runJavaScript(this.options.javascript(), run);
    const worker = this.links.leastBusy();
    if (worker === undefined) return Promise.resolve({ ok: false, errorType: 'host', message: 'script workers cannot start' });
    const id = nextId++;
    const deadline = Date.now() + run.timeoutMs;
    const message: RunMessage = {
      type: 'run',
      id,
      source: run.source,
      placement: run.placement,
      request: run.request,
      flowId: run.flowId,
      stub: run.stub,
      deadline,
    };
    if (run.response) message.response = run.response;
    return new Promise((resolve) => {
      this.links.call(worker, {
        id,
        deadline,
        item: message,
        store: run.store,
        resolve,
        expire: () => resolve({ ok: false, errorType: 'timeout', message: `script exceeded its ${run.timeoutMs} ms deadline` }),
        fail: (reason) => resolve({ ok: false, errorType: 'host', message: reason }),
      });
    });
  }

  close(): void {
    this.links.close('script runner closed');
  }
}

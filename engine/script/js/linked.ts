/**
 * The JavaScript sandbox as an engine thread reaches it (per-core): the same JsScriptHost calls, sent
 * straight to the sandbox worker that owns the imposter (main placed it there, and it stays there), on
 * this thread's link to that worker. The worker holds the imposter's `state` for every thread, so
 * state stays exact; deadlines, failures and limits are the worker's and host's as on main.
 */
import type { MessagePort } from 'node:worker_threads';
import type { LinkOffer } from '../../threads/index.js';
import type { Logger } from '../../log/index.js';
import { WorkerLinks, type LinkedCall } from '../shared/index.js';
import { ScriptError, ScriptTimeoutError } from './errors.js';
import { answerCall, SandboxOutbox, writeScriptLogs, type JsScriptHost, type SandboxItem } from './host.js';
import { JsHookCalls, runMessage, type HookRun } from './hook-calls.js';
import { readReplies } from './protocol.js';

export interface LinkedJsHostOptions {
  log: Pick<Logger, 'isEnabled' | 'debug' | 'info' | 'warn' | 'error'>;
  /** The worker of `generation` ignored a deadline past its grace (main replaces it). */
  stuck(worker: number, generation: number): void;
}

interface Call extends LinkedCall<SandboxItem> {
  timeoutMs: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Run ids of this thread (the worker answers each link by its own ids). */
let nextId = 1;

export class LinkedJsHost extends JsHookCalls implements JsScriptHost {
  private readonly links: WorkerLinks<SandboxItem, Call>;
  /** Each imposter's worker, as main placed it (from the imposter's plan). */
  private readonly placed = new Map<number, number>();

  constructor(options: LinkedJsHostOptions) {
    super();
    this.links = new WorkerLinks<SandboxItem, Call>({
      outbox: () => new SandboxOutbox(),
      replies: (message) => {
        if (typeof message !== 'string') return [];
        return readReplies(message).map(({ id, outcome, logs }) => {
          if (logs) writeScriptLogs(options.log, logs);
          return { id, apply: (call: Call) => answerCall(call, call.timeoutMs, outcome) };
        });
      },
      stuck: options.stuck,
    });
  }

  /** A link to a sandbox worker (new, or its next generation). */
  attach(offer: LinkOffer, port: MessagePort): void {
    this.links.attach(offer, port);
  }

  /** Main placed imposter `scope` on `worker` (its plan says so). */
  placeAt(scope: number, worker: number): void {
    this.placed.set(scope, worker);
  }

  /** Main forgets imposters (it owns their placement). */
  forget(): void {}

  place(): number {
    throw new Error('imposters are placed by the main thread');
  }

  async close(): Promise<void> {
    this.links.close('script host closed');
  }

  protected run(hook: HookRun): Promise<unknown> {
    const worker = this.placed.get(hook.scope);
    if (worker === undefined) return Promise.reject(new ScriptError('no script worker placed for this imposter', 'host'));
    const id = nextId++;
    // The worker's run reaches the imposter's flow store itself (on main): only the metadata goes.
    const message = runMessage(id, hook);
    const { timeoutMs } = hook;
    const { deadline } = message;
    // Counted in the worker's shared count: main places new imposters on idle workers by it.
    const owed = this.links.owedBy(worker);
    owed?.add();
    return new Promise((resolve, reject) => {
      this.links.call(worker, {
        id,
        deadline,
        item: { run: message },
        startClock(now) {
          this.deadline = message.deadline = now + timeoutMs;
        },
        timeoutMs,
        resolve,
        reject,
        expire: () => reject(new ScriptTimeoutError(timeoutMs)),
        fail: (reason) => reject(new ScriptError(reason, 'host')),
        done: () => owed?.release(),
      });
    });
  }
}

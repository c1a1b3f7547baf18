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
import {
  answerCall,
  DEFAULT_TIMEOUT_MS,
  SandboxOutbox,
  svcFunctionSource,
  writeScriptLogs,
  type JsScriptHost,
  type SandboxItem,
  type ScriptCallOptions,
  type SvcJsCall,
} from './host.js';
import { readReplies, type HookKind, type RunMessage } from './protocol.js';
import type { ScriptRequest, ScriptResponse } from './types.js';

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

export class LinkedJsHost implements JsScriptHost {
  private readonly links: WorkerLinks<SandboxItem, Call>;
  /** Each imposter's worker, as main placed it (from the imposter's plan). */
  private readonly placed = new Map<number, number>();

  constructor(options: LinkedJsHostOptions) {
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

  inject(scope: number, source: string, request: ScriptRequest, options?: ScriptCallOptions): Promise<unknown> {
    return this.run(scope, 'inject', source, request, undefined, options);
  }

  async predicate(scope: number, source: string, request: ScriptRequest, options?: ScriptCallOptions): Promise<boolean> {
    return Boolean(await this.run(scope, 'predicate', source, request, undefined, options));
  }

  decorate(scope: number, source: string, request: ScriptRequest, response: ScriptResponse, options?: ScriptCallOptions): Promise<unknown> {
    return this.run(scope, 'decorate', source, request, response, options);
  }

  async wait(scope: number, source: string, request: ScriptRequest, options?: ScriptCallOptions): Promise<number> {
    return Number(await this.run(scope, 'wait', source, request, undefined, options));
  }

  svc(scope: number, code: string, call: SvcJsCall, options?: ScriptCallOptions): Promise<unknown> {
    const meta = JSON.stringify({ placement: call.placement, flowId: call.flowId, stub: call.stub });
    const request = call.request as unknown as ScriptRequest;
    return this.run(scope, 'svc', svcFunctionSource(code, call.placement), request, call.response as unknown as ScriptResponse, options, meta);
  }

  /** Main forgets imposters (it owns their placement). */
  forget(): void {}

  place(): number {
    throw new Error('imposters are placed by the main thread');
  }

  async close(): Promise<void> {
    this.links.close('script host closed');
  }

  private run(
    scope: number,
    kind: HookKind,
    source: string,
    request: ScriptRequest,
    response: ScriptResponse | undefined,
    options: ScriptCallOptions | undefined,
    meta?: string,
  ): Promise<unknown> {
    const worker = this.placed.get(scope);
    if (worker === undefined) return Promise.reject(new ScriptError('no script worker placed for this imposter', 'host'));
    const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const id = nextId++;
    const message: RunMessage = { id, scope, kind, source, timeoutMs, request: JSON.stringify(request), deadline };
    if (response !== undefined) message.response = JSON.stringify(response);
    if (meta !== undefined) message.meta = meta;
    // Counted in the worker's shared count: main places new imposters on idle workers by it.
    const owed = this.links.owedBy(worker);
    owed?.add();
    return new Promise((resolve, reject) => {
      this.links.call(worker, {
        id,
        deadline,
        item: { run: message },
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

import type { MockRequest } from '../../model/index.js';
import type { IsFields, PreparedResponse } from './is-response.js';
import type { FaultObserver, FaultRandom } from './fault-hooks.js';
import type { JsScriptHost } from '../../script/js/index.js';
import type { SvcScripts } from './svc-script.js';

/** What serving one request ends in: an HTTP response, or a TCP-level fault with no response. */
export type ResponseOutcome =
  | { kind: 'http'; response: PreparedResponse }
  | { kind: 'transport'; fault: string }
  /** A `_svc.script` passed: matching goes on with the next stub (docs/scripts.md). */
  | { kind: 'pass' };

/** What a response step may know about the imposter serving the request. */
export interface ImposterScope {
  port: number;
  /** The imposter's `defaultResponse` fields (mountebank falls back to them field by field). */
  defaults: IsFields | undefined;
  /** Where injected faults are counted (metrics). */
  observers: FaultObserver;
  /** The imposter's own draw source for fault probabilities (seedable, SVC_FAULT_SEED). */
  random: FaultRandom;
  /** User JavaScript (inject, decorate, function wait): the sandbox, keyed by `port`, and the deadline. */
  scripts: ImposterScripts;
  /** `_svc.script` (docs/scripts.md): runner, flow store and settings. */
  svc?: SvcScripts;
}

export interface ImposterScripts {
  /** The manager's sandbox host, started on first use. */
  host(): JsScriptHost;
  /** `_svc.scriptEngine.timeoutMs` (docs/limits.md, default 5000). */
  timeoutMs: number;
}

export interface ResolveContext {
  request: MockRequest;
  imposter: ImposterScope;
  /** The matched stub's position and id: the `rule_id` of fault metrics. */
  stubIndex: number;
  stubId: string | undefined;
}

import type { MockRequest } from '../model/index.js';
import { isObject, predicatesAreScripted } from '../model/index.js';
import type { MatchContext, StubSetMatcher } from '../match/index.js';
import {
  compileResponse,
  ResponseCycle,
  type CompiledResponse,
  type ImposterScope,
  type IsFields,
  type PreparedResponse,
  type ProxyObserver,
  type ProxyRecorder,
  type ScriptCompileContext,
} from '../respond/index.js';

import { compileStateOps, type FlowStore, type StateOp, type StubGates } from '../state/index.js';
import type { JournalEntry } from '../journal/index.js';
import type { Logger } from '../log/index.js';
import type { RecordedRequest } from './record.js';

/** A stub as served: its read-back config plus the response cycle (cycling state survives unrelated edits). */
export interface LiveStub {
  config: Record<string, unknown>;
  cycle: ResponseCycle<CompiledResponse>;
  /** mountebank's `--debug`: what this stub matched and answered, oldest first (read back as `matches`). */
  matches?: Array<Record<string, unknown>>;
  /** `_svc.stateOps` by response index (docs/responses.md); absent when no response has any. */
  stateOps?: Array<StateOp[] | undefined>;
  /** The stub as given, when it held null fields `config` leaves out (StubDefinition.given). */
  given?: Record<string, unknown>;
  /**
   * A fleet (engine/fleet) with more than one response: the stub's next position in its cycle, counted
   * fleet-wide (`cycle.at` maps it to a response); absent, the cycle is this process's own.
   */
  sharedPosition?: () => Promise<number>;
}

/**
 * A stub compiled for serving: every response compiled once, the cycle position in `slot` when given
 * (per-core: shared memory every thread steps), else this thread's own.
 */
export function compileLiveStub(
  config: Record<string, unknown>,
  defaults: IsFields | undefined,
  scripts: ScriptCompileContext | undefined,
  slot?: SharedArrayBuffer,
): LiveStub {
  const configs = config.responses as Array<Record<string, unknown>>;
  const compiled = configs.map((r) => compileResponse(r, defaults, scripts && { settings: scripts.settings, stub: config }));
  const stateOps = compileStateOps(configs);
  const cycle = new ResponseCycle(compiled, configs, slot);
  return { config, cycle, ...(stateOps ? { stateOps } : {}) };
}

/** What changes how every request of an imposter is finished; fixed when it is created. */
export interface ServeOptions {
  /** recordRequests or mountebank's `--mock`. */
  recordRequests: boolean;
  allowCORS: boolean;
  /** mountebank's `--debug`: stubs keep their matches. */
  debugMatches: boolean;
  /** `--loglevel debug`: each answered request is logged. */
  logRequests: boolean;
  /** mountebank 2.9.1 answers an unknown fault name with the default response. */
  unknownFaultServesDefault: boolean;
}

/**
 * An imposter compiled for serving, as the request pipeline reads it: the main thread's Imposter, or
 * an engine thread's copy compiled from the same validated config (per-core plan).
 */
export interface ServedImposter {
  readonly port: number;
  readonly protocol: string;
  /** The config's `name` (debug reports). */
  readonly name: unknown;
  readonly enabled: boolean;
  readonly stubs: readonly LiveStub[];
  readonly matcher: StubSetMatcher;
  /** Matching rule 5 (spaces, scenario states); undefined when no stub has those fields. */
  readonly gates: StubGates | undefined;
  readonly matchContext: MatchContext;
  readonly scope: ImposterScope;
  readonly defaultPrepared: PreparedResponse;
  readonly options: ServeOptions;
  readonly log: Logger;
  flowIdOf(request: { headers: Record<string, string | string[]> }): string;
}

/**
 * The imposter's state that has one owner, as the request pipeline reaches it. The main thread owns it
 * (Imposter); an engine thread reaches the same state through shared memory and messages to main.
 */
export interface ImposterState {
  /** numberOfRequests + 1 (a shared counter under per-core). */
  countRequest(): void;
  /** A journal record for a request just read (only called when the imposter records). */
  openRecord(request: MockRequest): JournalEntry<RecordedRequest>;
  /**
   * The record is final (stamped with status and latency, or not: a debug report, a TCP fault) and the
   * response is not written yet. `notify`: observers hear of it (onRecorded). A promise (a fleet's shared
   * journal): the response waits for it, so any node reads the record once the client has its answer.
   */
  closeRecord(record: JournalEntry<RecordedRequest>, notify: boolean): void | Promise<void>;
  /** An HTTP status is about to be written (request metrics). */
  answered(method: string, status: number): void;
  /** `--debug`: stub `index` (`stub`) matched; `entry` is kept in its `matches`, before the response is written. */
  matched(stub: LiveStub, index: number, entry: Record<string, unknown>): void;
  readonly flowStore: FlowStore;
  /** Where proxy recordings go (the stubs' owner, reached from an engine thread by message). */
  readonly proxyRecorder: ProxyRecorder | undefined;
  readonly proxyObserver: ProxyObserver | undefined;
}

/** Any script an engine thread sends to the JavaScript sandbox: `inject` (predicate or response), decorate, a function wait, or a `_svc.script` in JavaScript. */
export function stubsUseJavaScript(
  stubs: readonly LiveStub[],
  predicateScripts: (stub: LiveStub) => ReadonlyArray<{ script: { source: { engine: string } } }>,
): boolean {
  return stubs.some(
    (stub) =>
      predicatesAreScripted(stub.config.predicates)
      || predicateScripts(stub).some(({ script }) => script.source.engine === 'javascript')
      || stub.cycle.responses.some(
        (response) =>
          response.type === 'inject' || response.script?.source.engine === 'javascript' || hasJsBehavior(response.config) || proxyRunsJavaScript(response),
      ),
  );
}

/** Any `_svc.script` that may run on the Rhai pool (a predicate, a response, or a decorate/wait behavior's). */
export function stubsUseRhai(
  stubs: readonly LiveStub[],
  predicateScripts: (stub: LiveStub) => ReadonlyArray<{ script: { source: { engine: string } } }>,
): boolean {
  return stubs.some(
    (stub) =>
      predicateScripts(stub).some(({ script }) => script.source.engine !== 'javascript')
      || stub.cycle.responses.some((response) => (response.script && response.script.source.engine !== 'javascript') || hasSvcBehavior(response.config)),
  );
}

function hasSvcBehavior(config: Record<string, unknown>): boolean {
  const behaviors = config._behaviors ?? config.behaviors;
  const entries = Array.isArray(behaviors) ? behaviors : [behaviors];
  return entries.some((entry) => isObject(entry) && [entry.decorate, entry.wait].some((step) => isObject(step) && step._svc !== undefined));
}

/** decorate or wait given as JavaScript (a `_svc.script` one may be either engine: counted as JavaScript, a worker placed for nothing at worst). */
function hasJsBehavior(config: Record<string, unknown>): boolean {
  const behaviors = config._behaviors ?? config.behaviors;
  const entries = Array.isArray(behaviors) ? behaviors : [behaviors];
  return entries.some((entry) => isObject(entry) && (entry.decorate !== undefined || isScriptedWait(entry.wait)));
}

/** A wait given as a function (`inject`, `_svc`, or a string that is not a number); a number or a `{min, max}` range is not. */
function isScriptedWait(wait: unknown): boolean {
  if (wait === undefined || typeof wait === 'number') return false;
  if (isObject(wait)) return wait.inject !== undefined || wait._svc !== undefined;
  return Number.isNaN(parseInt(String(wait), 10));
}

/** A proxy whose recordings run JavaScript: `predicateGenerators` injection, or `addDecorateBehavior` (a replayed recording's decorate). */
function proxyRunsJavaScript(response: CompiledResponse): boolean {
  const proxy = response.proxy;
  if (!proxy) return false;
  return (
    proxy.addDecorateBehavior !== undefined
    || (Array.isArray(proxy.predicateGenerators) && proxy.predicateGenerators.some((g) => isObject(g) && g.inject !== undefined))
  );
}

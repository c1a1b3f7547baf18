import type { MockRequest } from '../model/index.js';
import { isObject, predicatesAreScripted } from '../model/index.js';
import type { MatchContext, StubSetMatcher } from '../match/index.js';
import {
  compileResponse,
  ResponseCycle,
  servesFromConfig,
  servesWithScripts,
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
   * response is not written yet. `notify`: observers hear of it (onRecorded).
   */
  closeRecord(record: JournalEntry<RecordedRequest>, notify: boolean): void;
  /** An HTTP status is about to be written (request metrics). */
  answered(method: string, status: number): void;
  readonly flowStore: FlowStore;
  /** Where proxy recordings go (the stubs' owner, reached from an engine thread by message). */
  readonly proxyRecorder: ProxyRecorder | undefined;
  readonly proxyObserver: ProxyObserver | undefined;
}

/**
 * True when any thread can serve every request of the imposter from its config, shared counters, a
 * journal reached by message and a flow store every thread reaches (the owner's in-memory one by
 * message, redis by its own connection) for gates and `_svc.stateOps`, the script workers it reaches on
 * its own links (predicates included: `inject` and `_svc.script`) and the upstreams of proxies (its own
 * agents; recordings go to the stubs' owner). Not with a response needing what only the main thread
 * holds (shellTransform, a predicateGenerators injection), per-stub `--debug` matches or a per-request
 * debug log. Walks the stubs: ask when they change.
 */
export function servesAnywhere(imposter: ServedImposter): boolean {
  const { debugMatches, logRequests } = imposter.options;
  if (debugMatches || logRequests) return false;
  return imposter.stubs.every((stub) => stub.cycle.responses.every((response) => servesFromConfig(response) || servesWithScripts(response)));
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
        (response) => response.type === 'inject' || response.script?.source.engine === 'javascript' || hasJsBehavior(response.config),
      ),
  );
}

/** decorate or wait given as JavaScript (a `_svc.script` one may be either engine: counted as JavaScript, a worker placed for nothing at worst). */
function hasJsBehavior(config: Record<string, unknown>): boolean {
  const behaviors = config._behaviors ?? config.behaviors;
  const entries = Array.isArray(behaviors) ? behaviors : [behaviors];
  return entries.some(
    (entry) =>
      isObject(entry)
      && (entry.decorate !== undefined || (entry.wait !== undefined && typeof entry.wait !== 'number' && Number.isNaN(parseInt(String(entry.wait), 10)))),
  );
}

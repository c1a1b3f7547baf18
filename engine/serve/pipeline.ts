import { performance } from 'node:perf_hooks';
import type { MockRequest, WireRequest } from '../model/index.js';
import { cloneJson, isObject, PatternTimeout, toMockRequest, errorText } from '../model/index.js';
import { PredicateError, type MatchContext, type TriedEntry as MatchTried } from '../match/index.js';
import {
  applyTransportFault,
  canonicalFault,
  drawFaultBlock,
  errorResponse,
  resolveResponse,
  scriptFailure,
  unknownFault,
  ScriptFailure,
  withCorsPreflight,
  type PreparedResponse,
  type ResponseOutcome,
} from '../respond/index.js';
import type { ResponseSink } from '../transport/index.js';
import type { JournalEntry } from '../journal/index.js';
import { debugReport, wantsDebug, type DebugOutcome } from '../analysis/index.js';
import type { StubExplanation } from '../match/index.js';
import { ScriptTimeoutError } from '../script/js/index.js';
import { applyStateOps, FlowStoreUnavailable } from '../state/index.js';
import { outcomeOf, recordOf, type RecordedRequest, type TriedEntry } from './record.js';
import { LoggedSink } from './request-log.js';
import { openExchange, type Exchange } from './exchange.js';
import type { ImposterState, LiveStub, ServedImposter } from './host.js';

const DEBUG_HEADERS: Array<[string, string]> = [
  ['Content-Type', 'application/json'],
  ['X-Svc-Debug-Response', 'true'],
];
const TIMEOUT_HEADERS: Array<[string, string]> = [
  ['Content-Type', 'application/json'],
  ['x-svc-script-timeout', 'true'],
];

/**
 * The request path of one imposter: gate → match → settle → respond → deliver → answer, over an
 * exchange. The same code runs on the main thread and on every per-core engine thread; what differs is
 * the `state` it reaches (the owner's journal and counters, or an engine thread's view of them).
 */
export class RequestPipeline {
  constructor(
    private readonly imposter: ServedImposter,
    private readonly state: ImposterState,
  ) {}

  /**
   * Entry point for every request reaching the imposter: match (gates, predicates, scenario move) →
   * respond (cycle, stateOps, dynamic response) → faults → answer (record, count, send); a debug
   * request is matched and reported.
   */
  handle(wire: WireRequest, given: ResponseSink): void {
    const { imposter } = this;
    const recording = imposter.options.recordRequests;
    const started = recording ? performance.now() : 0;
    let request: MockRequest;
    try {
      request = toMockRequest(wire);
    } catch (err) {
      // No exchange yet: an unreadable request is neither counted nor recorded.
      imposter.log.error(`imposter ${imposter.port}: cannot read request: ${errorText(err)}`);
      this.write(given, errorResponse('bad_request', 'Malformed request'));
      return;
    }
    const sink = imposter.options.logRequests
      ? new LoggedSink(given, request.method, request.path, (line) => imposter.log.debug(`${imposter.protocol}:${imposter.port} ${line}`))
      : given;
    this.state.countRequest();
    const record = recording ? this.state.openRecord(request) : undefined;
    const ex = openExchange(request, sink, wire.url, record, started);
    if (wantsDebug(wire.rawHeaders)) {
      this.debug(ex);
      return;
    }
    if (!imposter.enabled) {
      ex.stage = 'respond';
      this.answer(ex, imposter.defaultPrepared);
      return;
    }
    this.gate(ex);
  }

  /** Match stage, first step: gated by spaces and scenario states when the stubs have them (docs/imposters.md rule 5). */
  private gate(ex: Exchange): void {
    ex.stage = 'match';
    const { imposter } = this;
    const gated = imposter.gates?.forRequest(imposter.matchContext, imposter.flowIdOf(ex.request), this.state.flowStore);
    if (gated instanceof Promise) {
      gated.then(
        (ready) => {
          ex.gated = ready;
          this.match(ex);
        },
        (err: unknown) => this.failFlowStore(ex, err),
      );
    } else {
      ex.gated = gated;
      this.match(ex);
    }
  }

  /** Match stage: the first stub at or after `ex.from` whose predicates hold. */
  private match(ex: Exchange): void {
    ex.mark = ex.trace?.length ?? 0;
    let found: number | Promise<number>;
    try {
      found = this.imposter.matcher.firstMatch(ex.request, ex.gated?.context ?? this.imposter.matchContext, ex.from, ex.trace);
    } catch (err) {
      this.failMatch(ex, err);
      return;
    }
    if (typeof found === 'number') {
      this.settle(ex, found);
    } else {
      found.then(
        (index) => this.settle(ex, index),
        (err: unknown) => this.failMatch(ex, err),
      );
    }
  }

  /**
   * Match stage, last step: the chosen stub moves its scenario (docs/imposters.md) before it answers, so the
   * client's next request sees the new state. On a shared store the move is a compare-and-set from the
   * state the stub was matched under; when that state changed meanwhile (another process, an admin
   * call), nothing moved and the request is matched again from `from` (this attempt's `tried` dropped).
   */
  private settle(ex: Exchange, index: number): void {
    ex.index = index;
    const moved = ex.gated !== undefined && index >= 0 ? ex.gated.served(index) : undefined;
    if (moved === undefined) {
      this.respond(ex);
      return;
    }
    moved.then(
      (applied) => {
        if (applied) {
          this.respond(ex);
          return;
        }
        if (ex.trace) ex.trace.length = ex.mark;
        this.gate(ex);
      },
      (err: unknown) => this.failFlowStore(ex, err),
    );
  }

  /** docs/errors.md: the flow store failing while reading or moving scenario state is a 503. */
  private failFlowStore(ex: Exchange, err: unknown): void {
    const message = `flow store unavailable: ${errorText(err)}`;
    this.answer(ex, errorResponse('service_unavailable', message), message);
  }

  /** docs/metrics-and-events.md: match only and answer the report; no response runs, the cycle stays, nothing is stamped. */
  private debug(ex: Exchange): void {
    ex.stage = 'debug';
    const { imposter } = this;
    const { request, record } = ex;
    if (record) ex.stored = this.state.closeRecord(record, true) ?? undefined;
    const fail = (err: unknown): void => {
      // docs/errors.md: a script deadline during debug matching is a 504 marked as a timeout.
      const timedOut = err instanceof ScriptTimeoutError || (err instanceof ScriptFailure && err.response.statusCode === 504);
      const response = timedOut
        ? errorResponse('debug_timeout', 'Debug matching timed out', { headers: TIMEOUT_HEADERS })
        : errorResponse('internal_error', 'Debug matching failed');
      this.answer(ex, response, `debug matching failed: ${errorText(err)}`);
    };
    const report = (outcome: DebugOutcome): void => {
      let body: Buffer;
      try {
        body = Buffer.from(JSON.stringify(debugReportOf(imposter, request, outcome), null, 2));
      } catch (err) {
        fail(err);
        return;
      }
      this.answer(ex, { statusCode: 200, headers: DEBUG_HEADERS, body });
    };
    const debugOutcome = (index: number): DebugOutcome => debugOutcomeOf(imposter, index);
    if (!imposter.enabled) {
      report({ unmatched: 'imposter is disabled' });
      return;
    }
    const run = (ctx: MatchContext): void => {
      let found: number | Promise<number>;
      try {
        found = imposter.matcher.firstMatch(request, ctx, 0);
      } catch (err) {
        fail(err);
        return;
      }
      if (typeof found === 'number') report(debugOutcome(found));
      else found.then((index) => report(debugOutcome(index)), fail);
    };
    // Gated like a real request (spaces, scenario states), but nothing moves.
    const gated = imposter.gates?.forRequest(imposter.matchContext, imposter.flowIdOf(request), this.state.flowStore);
    if (gated instanceof Promise) gated.then((ready) => run(ready.context), fail);
    else run(gated?.context ?? imposter.matchContext);
  }

  private failMatch(ex: Exchange, err: unknown): void {
    if (err instanceof FlowStoreUnavailable) {
      this.failFlowStore(ex, err);
      return;
    }
    const message = errorText(err);
    if (err instanceof PatternTimeout) {
      const { imposter } = this;
      imposter.log.warn(`imposter ${imposter.port}: ${stubsWithPattern(imposter.stubs, err.source)}: ${message}; the request is answered with a 500`);
      this.answer(ex, errorResponse('pattern_timeout', message), `predicate evaluation failed: ${message}`);
      return;
    }
    // mountebank answers a predicate that throws while matching with 500; a failing injected predicate
    // is a 400, and one that overran its deadline a 504 (docs/errors.md).
    const response =
      err instanceof ScriptFailure
        ? err.response
        : err instanceof PredicateError
          ? errorResponse('predicate_error', message)
          : (scriptFailure(err, 'predicate') ?? errorResponse('invalid_predicate_injection', message));
    this.answer(ex, response, `predicate evaluation failed: ${message}`);
  }

  private readonly logLine = (message: string): void => this.imposter.log.warn(`imposter ${this.imposter.port}: ${message}`);

  /**
   * Respond stage: the matched stub's next response from its cycle (the default response when none
   * matched); `_svc.stateOps` run first, and a dynamic response resolves before the faults stage.
   */
  private respond(ex: Exchange): void {
    ex.stage = 'respond';
    const { imposter } = this;
    const index = ex.index;
    const stub = index >= 0 ? imposter.stubs[index] : undefined;
    if (ex.sink instanceof LoggedSink) ex.sink.stubIndex = index;
    if (ex.record) {
      ex.record.value.matchOutcome = outcomeOf(index, stub?.config.id as string | undefined, ex.trace && this.withIds(ex.trace));
    }
    if (!stub) {
      this.answer(ex, imposter.defaultPrepared);
      return;
    }
    let taken = ex.taken;
    ex.taken = undefined;
    if (!taken && stub.sharedPosition && ex.position === -1) {
      // A fleet counts the stub's cycle on Redis; unreachable, this node's own cycle answers (traffic goes on).
      stub.sharedPosition().then(
        (position) => {
          ex.position = position;
          this.respond(ex);
        },
        () => {
          ex.position = -2;
          this.respond(ex);
        },
      );
      return;
    }
    const debugMatches = imposter.options.debugMatches;
    const drawn = ex.position >= 0;
    if (!taken && (stub.stateOps || debugMatches || drawn)) {
      // Which response (and so which ops) in one step: another thread may move a shared cycle meanwhile.
      const index = drawn ? stub.cycle.at(ex.position) : stub.cycle.take();
      taken = { configIndex: index, compiled: stub.cycle.responses[index] };
      const ops = stub.stateOps?.[index];
      if (ops) {
        // Taken now, so a request arriving while the ops await cannot get this response (or its ops).
        ex.taken = taken;
        applyStateOps(this.state.flowStore, imposter.flowIdOf(ex.request), ops).then(
          () => this.respond(ex),
          (err: unknown) => this.failStateOps(ex, err),
        );
        return;
      }
    }
    const debugAt = debugMatches ? performance.now() : 0;
    const configIndex = debugMatches && taken ? taken.configIndex : -1;
    const compiled = taken?.compiled ?? stub.cycle.next();
    if (!compiled.dynamic) {
      if (configIndex >= 0) this.recordMatch(stub, index, configIndex, ex.request, undefined, debugAt);
      this.answer(ex, compiled.prepared!);
      return;
    }
    const stubId = stub.config.id as string | undefined;
    // An `is` response that only waits (docs/behaviors.md) or only has a fault block (docs/faults.md)
    // is its prepared static response, or the fault drawn in its place, after a delay: answered from
    // one timer, without the dynamic path's promise chain and without building the same bytes again.
    if (compiled.type === 'is') {
      const { behaviors } = compiled;
      if (behaviors?.delay && compiled.config._svc === undefined) {
        this.deliverAfter(ex, stub, configIndex, debugAt, { kind: 'http', response: compiled.prepared! }, behaviors.delay(), true);
        return;
      }
      if (!behaviors && compiled.faultsOnly) {
        const plain: ResponseOutcome = { kind: 'http', response: compiled.prepared! };
        const drawn = drawFaultBlock(plain, compiled, { request: ex.request, imposter: imposter.scope, stubIndex: index, stubId });
        // Unref'd, as the fault step's own delay: a pending latency must not keep a stopping process alive.
        this.deliverAfter(ex, stub, configIndex, debugAt, drawn.outcome, drawn.delayMs, false);
        return;
      }
    }
    const ctx = {
      request: ex.request,
      imposter: imposter.scope,
      stubIndex: index,
      stubId,
      url: ex.url,
      recorder: this.state.proxyRecorder,
      log: this.logLine,
      proxyObserver: this.state.proxyObserver,
    };
    resolveResponse(compiled, ctx).then(
      (outcome) => {
        if (outcome.kind === 'pass') {
          // A `_svc.script` passed (docs/scripts.md): the next matching stub answers, still gated, and moves its scenario.
          ex.from = index + 1;
          ex.position = -1;
          this.gate(ex);
          return;
        }
        // Before the answer is written: an admin read after the client saw it finds the match (an engine thread's too).
        if (configIndex >= 0) this.recordMatch(stub, index, configIndex, ex.request, outcome.kind === 'http' ? outcome.response : undefined, debugAt);
        this.deliver(ex, outcome);
      },
      (err: unknown) => {
        const message = errorText(err);
        this.answer(ex, errorResponse('internal_error', message), `response failed: ${(err as Error)?.stack ?? String(err)}`);
      },
    );
  }

  /** Faults stage for an outcome known when the request arrived, after `delayMs` (at once when 0), with its `--debug` match as the dynamic path records it. */
  private deliverAfter(ex: Exchange, stub: LiveStub, configIndex: number, debugAt: number, outcome: ResponseOutcome, delayMs: number, ref: boolean): void {
    const deliver = (): void => {
      if (configIndex >= 0) this.recordMatch(stub, ex.index, configIndex, ex.request, outcome.kind === 'http' ? outcome.response : undefined, debugAt);
      this.deliver(ex, outcome);
    };
    if (delayMs <= 0) {
      deliver();
      return;
    }
    const timer = setTimeout(deliver, delayMs);
    if (!ref) timer.unref();
  }

  /** `--debug`: the stub keeps what it matched and answered (on its owner: the main thread). */
  private recordMatch(stub: LiveStub, index: number, configIndex: number, request: MockRequest, served: PreparedResponse | undefined, started: number): void {
    this.state.matched(stub, index, matchEntry(stub, configIndex, request, served, started));
  }

  /** docs/responses.md: a flow store failure while applying `_svc.stateOps` answers that request with a 500. */
  private failStateOps(ex: Exchange, err: unknown): void {
    const message = `_svc.stateOps failed: ${errorText(err)}`;
    this.answer(ex, errorResponse('flow_state_error', message), message);
  }

  /** Faults stage: a transport fault is applied to the connection (nothing is answered); anything else is answered. */
  private deliver(ex: Exchange, outcome: ResponseOutcome): void {
    const { imposter } = this;
    if (outcome.kind === 'http') {
      this.answer(ex, outcome.response);
    } else if (outcome.kind === 'pass') {
      this.answer(ex, imposter.defaultPrepared);
    } else if (canonicalFault(outcome.fault) !== undefined) {
      // The record goes final (unstamped: no status reaches the wire) before the connection ends.
      const stored = ex.record ? this.state.closeRecord(ex.record, false) : undefined;
      if (stored) stored.then(() => applyTransportFault(outcome.fault, ex.sink));
      else applyTransportFault(outcome.fault, ex.sink);
    } else {
      if (!imposter.options.unknownFaultServesDefault) {
        this.deliver(ex, unknownFault(outcome.fault));
        return;
      }
      imposter.log.error(`${imposter.protocol}:${imposter.port} unknown fault '${outcome.fault}' ignored (mountebank compatibility)`);
      this.answer(ex, imposter.defaultPrepared);
    }
  }

  private withIds(trace: MatchTried[]): TriedEntry[] {
    const stubs = this.imposter.stubs;
    return trace.map((t) => {
      const id = stubs[t.stubIndex]?.config.id;
      return typeof id === 'string' ? { stubIndex: t.stubIndex, stubId: id, why: t.why } : { stubIndex: t.stubIndex, why: t.why };
    });
  }

  /**
   * The one place an exchange is answered: logs the failure that built `prepared` (if any), adds CORS
   * headers to what the respond stage answers (allowCORS), stamps the journal record with status and
   * latency (except a debug report's, docs/metrics-and-events.md) and counts (observers.onRequest) — both before the
   * response is written, so an admin call after the client saw it finds them — then sends.
   */
  private answer(ex: Exchange, prepared: PreparedResponse, failure?: string): void {
    const { imposter } = this;
    if (failure !== undefined) imposter.log.error(`imposter ${imposter.port}: ${failure}`);
    const response = imposter.options.allowCORS && ex.stage === 'respond' ? withCorsPreflight(prepared, ex.request.method, ex.request.headers) : prepared;
    const stored = ex.record && ex.stage !== 'debug' ? this.stamp(ex.record, response.statusCode, ex.started) : ex.stored;
    this.state.answered(ex.request.method, response.statusCode);
    if (stored) stored.then(() => this.write(ex.sink, response));
    else this.write(ex.sink, response);
  }

  private stamp(record: JournalEntry<RecordedRequest>, status: number, started: number): void | Promise<void> {
    record.value.status = status;
    record.value.latencyMs = Math.round(performance.now() - started);
    return this.state.closeRecord(record, true);
  }

  /** Writes a response; a sink that throws (socket gone mid-write) has its connection reset instead. */
  private write(sink: ResponseSink, response: PreparedResponse): void {
    try {
      sink.send(response.statusCode, response.headers, response.body);
    } catch (err) {
      this.imposter.log.error(`imposter ${this.imposter.port}: cannot write response: ${errorText(err)}`);
      sink.reset();
    }
  }
}

/**
 * mountebank's `--debug` match entry: the request as recorded, the response (a static `is` as
 * configured, anything else as served) and the response config used.
 */
function matchEntry(stub: LiveStub, configIndex: number, request: MockRequest, served: PreparedResponse | undefined, started: number): Record<string, unknown> {
  const responseConfig = cloneJson((stub.config.responses as Array<Record<string, unknown>>)[configIndex]);
  const { timestamp, ...seen } = recordOf(request);
  const response = served
    ? { statusCode: served.statusCode, headers: Object.fromEntries(served.headers), body: served.body.toString('utf8') }
    : isObject(responseConfig.is)
      ? cloneJson(responseConfig.is)
      : {};
  return {
    timestamp,
    request: { ...seen, body: seen.body ?? '' },
    response,
    responseConfig,
    processingTime: Math.round(performance.now() - started),
  };
}

/** docs/metrics-and-events.md: what matching `index` (-1: nothing) means for a debug report. */
export function debugOutcomeOf(imposter: ServedImposter, index: number): DebugOutcome {
  return index >= 0 ? { matched: index } : { unmatched: imposter.stubs.length === 0 ? 'imposter has no stubs' : 'no stub matched the request' };
}

/** The debug report (docs/metrics-and-events.md) of `request` against the imposter's stubs, with `candidates` when explained. */
export function debugReportOf(imposter: ServedImposter, request: MockRequest, outcome: DebugOutcome, candidates?: StubExplanation[]): Record<string, unknown> {
  const stubs = imposter.stubs.map((s) => ({ config: s.config, upcoming: s.cycle.responses[s.cycle.peek()] }));
  const about = { port: imposter.port, name: imposter.name, protocol: imposter.protocol };
  return debugReport(request, about, stubs, outcome, candidates);
}

/** The stubs (index and id) whose predicates hold `source`, for the log line of a stopped pattern. */
function stubsWithPattern(stubs: readonly LiveStub[], source: string): string {
  const needle = JSON.stringify(source);
  const found = stubs
    .map((stub, index) => ({ index, id: stub.config.id, predicates: JSON.stringify(stub.config.predicates ?? []) }))
    .filter((stub) => stub.predicates.includes(needle))
    .map((stub) => (stub.id === undefined ? `stub ${stub.index}` : `stub ${stub.index} (id ${String(stub.id)})`));
  return found.length > 0 ? found.join(', ') : 'a stub';
}

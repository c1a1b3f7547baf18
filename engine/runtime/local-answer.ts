/**
 * The engine thread's own answer for an imposter whose plan is local (stage 2 of per-core): match with
 * its own compiled matcher, step the stub's shared cycle, count in shared memory, write. Anything it
 * cannot answer exactly as the main thread would (a debug request, an unreadable request, a predicate
 * that throws or awaits) is left to the main thread.
 */
import type { MockRequest, WireRequest } from '../model/index.js';
import { toMockRequest } from '../model/index.js';
import { compileStubSet, type StubSetMatcher } from '../match/index.js';
import { ResponseCycle, type PreparedResponse } from '../respond/index.js';
import { wantsDebug } from '../analysis/index.js';
import type { ResponseSink } from '../transport/index.js';
import { asBuffer, type LocalPlan } from './protocol.js';
import { ThreadCounter } from './thread-counter.js';

/** A local plan made ready to serve on this thread. */
export interface LocalAnswer {
  matcher: StubSetMatcher;
  cycles: Array<ResponseCycle<PreparedResponse>>;
  fallback: PreparedResponse;
  count: ThreadCounter;
}

/** Structured cloning made the bodies Uint8Arrays: Buffers again, once per plan (writers cache per object). */
function revive(response: PreparedResponse): PreparedResponse {
  return { statusCode: response.statusCode, headers: response.headers, body: asBuffer(response.body) };
}

export function compilePlan(plan: LocalPlan): LocalAnswer {
  return {
    matcher: compileStubSet(plan.stubs),
    cycles: plan.stubs.map((stub) => new ResponseCycle(stub.responses.map(revive), stub.configs, stub.cycle)),
    fallback: revive(plan.fallback),
    count: new ThreadCounter(plan.count),
  };
}

/** No scripts run here: a local plan has none, and a matcher asking for one leaves the request to main. */
const NO_SCRIPTS = {};

/**
 * Answers `wire` from `local` (counted in this thread's `slot`) and returns its response, or
 * undefined when the main thread must (nothing was counted or moved then).
 */
export function answerLocally(local: LocalAnswer, wire: WireRequest, slot: number): PreparedResponse | undefined {
  if (wantsDebug(wire.rawHeaders)) return undefined;
  let request: MockRequest;
  let index: number | Promise<number>;
  try {
    request = toMockRequest(wire);
    index = local.matcher.firstMatch(request, NO_SCRIPTS, 0);
  } catch {
    return undefined;
  }
  if (typeof index !== 'number') {
    index.catch(() => undefined);
    return undefined;
  }
  local.count.add(slot);
  return index >= 0 ? local.cycles[index].next() : local.fallback;
}

/** Writes a response; a sink that throws (socket gone mid-write) has its connection reset instead. */
export function writeTo(sink: ResponseSink, response: PreparedResponse): void {
  try {
    sink.send(response.statusCode, response.headers, response.body);
  } catch {
    sink.reset();
  }
}

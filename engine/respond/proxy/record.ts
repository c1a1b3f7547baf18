/**
 * Where proxy recordings go (mountebank's responseResolver + stubs repository): proxyOnce inserts a
 * new stub just before the proxy's stub; proxyAlways adds the response to the first later stub with
 * the same predicates, or appends a new stub at the end; proxyTransparent records nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ResponseFields } from '../behaviors/index.js';
import { recordOnce, type OnceOutcome, type OnceRecording } from './once.js';

/** The imposter's live stub list, as much of it as recording needs. */
export interface StubStore {
  readonly stubs: ReadonlyArray<{ config: Record<string, unknown>; cycle: { responses: readonly unknown[] } }>;
  insertStub(index: number, stub: Record<string, unknown>): void;
  addStubResponse(index: number, response: Record<string, unknown>): void;
}

export type ProxyMode = 'proxyOnce' | 'proxyAlways' | 'proxyTransparent';

/**
 * Where a proxy's recordings go, and how proxyOnce requests in flight join the first: the stubs'
 * owner itself (ownerRecorder), or an engine thread's link to it (per-core), so that recordings are
 * applied once, in arrival order, whichever thread made them.
 */
export interface ProxyRecorder {
  /** Stores `recorded`, made by the proxy response `source` for a request with `predicates`: true when stored. */
  store(source: object, mode: ProxyMode, predicates: unknown[], recorded: Record<string, unknown>): boolean | Promise<boolean>;
  /** proxyOnce: runs `record` unless a request with the same `predicates` is recording for `source` (then replays its recording). */
  once<T>(source: object, predicates: unknown[], record: () => Promise<OnceRecording<T>>): Promise<OnceOutcome<T>>;
}

/** The owner's recorder: recordings go straight into `store`, flights are joined on this thread. */
export function ownerRecorder(store: StubStore): ProxyRecorder {
  return {
    store: (source, mode, predicates, recorded) => storeRecording(store, source, mode, predicates, recorded),
    once: recordOnce,
  };
}

export interface RecordingOptions {
  addWaitBehavior: boolean;
  addDecorateBehavior: string | undefined;
}

/** The stub response a recording stores: the served response as `is`, plus the requested behaviors. */
export function recordedResponse(response: ResponseFields, options: RecordingOptions): Record<string, unknown> {
  const recorded: Record<string, unknown> = { is: response };
  const behaviors: Array<Record<string, unknown>> = [];
  if (options.addWaitBehavior && response._proxyResponseTime) behaviors.push({ wait: response._proxyResponseTime });
  if (options.addDecorateBehavior) behaviors.push({ decorate: options.addDecorateBehavior });
  if (behaviors.length > 0) recorded.behaviors = behaviors;
  return recorded;
}

/** A response a proxy recorded (what `DELETE .../savedProxyResponses` removes). */
export function isRecordedProxyResponse(response: unknown): boolean {
  const is = (response as { is?: { _proxyResponseTime?: unknown } } | null)?.is;
  return typeof is?._proxyResponseTime === 'number';
}

/**
 * Stores a recording made by the proxy response `source` (located by identity: stubs may have moved
 * meanwhile); false when nothing was stored (proxyTransparent, or the proxy's stub is gone).
 */
export function storeRecording(store: StubStore, source: unknown, mode: ProxyMode, predicates: unknown[], response: Record<string, unknown>): boolean {
  if (mode === 'proxyTransparent') return false;
  const at = store.stubs.findIndex((stub) => stub.cycle.responses.includes(source));
  if (at === -1) return false;
  if (mode === 'proxyOnce') {
    store.insertStub(at, { predicates, responses: [response] });
    return true;
  }
  for (let i = at + 1; i < store.stubs.length; i += 1) {
    if (isDeepStrictEqual(store.stubs[i].config.predicates ?? [], predicates)) {
      store.addStubResponse(i, response);
      return true;
    }
  }
  store.insertStub(store.stubs.length, { predicates, responses: [response] });
  return true;
}

/**
 * proxyOnce: the stub response `source` recorded for `predicates`, if that recording is still among the
 * stubs (a stub of those predicates before the proxy's). A request matched before the recording was
 * applied (another thread's stale plan) is answered by it, as it would be if matched now.
 */
export function recordingFor(store: StubStore, source: unknown, predicates: unknown[]): Record<string, unknown> | undefined {
  const at = store.stubs.findIndex((stub) => stub.cycle.responses.includes(source));
  for (let i = at - 1; i >= 0; i -= 1) {
    const { config } = store.stubs[i];
    const first = (config.responses as unknown[] | undefined)?.[0];
    if (isRecordedProxyResponse(first) && isDeepStrictEqual(config.predicates ?? [], predicates)) return first as Record<string, unknown>;
  }
  return undefined;
}

/**
 * Where proxy recordings go (mountebank's responseResolver + stubs repository): proxyOnce inserts a
 * new stub just before the proxy's stub; proxyAlways adds the response to the first later stub with
 * the same predicates, or appends a new stub at the end; proxyTransparent records nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ResponseFields } from '../behaviors/index.js';

/** The imposter's live stub list, as much of it as recording needs. */
export interface StubStore {
  readonly stubs: ReadonlyArray<{ config: Record<string, unknown>; cycle: { responses: readonly unknown[] } }>;
  insertStub(index: number, stub: Record<string, unknown>): void;
  addStubResponse(index: number, response: Record<string, unknown>): void;
}

export type ProxyMode = 'proxyOnce' | 'proxyAlways' | 'proxyTransparent';

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

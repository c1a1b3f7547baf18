import { performance } from 'node:perf_hooks';
import type { MockRequest } from '../../model/index.js';
import type { ResponseFields } from '../behaviors/index.js';
import { rewrittenUrl, withInjectedHeaders, type CompiledProxy } from './compile.js';
import { forward, ProxyError } from './upstream.js';
import { generatePredicates, type InjectedGenerator } from './predicate-generators.js';
import { recordedResponse, type ProxyRecorder } from './record.js';
import type { HeaderMap } from '../../model/index.js';

type Predicate = Record<string, unknown>;

/** Proxy metrics (docs/metrics-and-events.md): the upstream call alone (status 0 without an HTTP answer), and the whole proxied request. */
export interface ProxyObserver {
  onUpstream(method: string, status: number, durationMs: number): void;
  onProxy(method: string, faultApplied: boolean, durationMs: number): void;
}

/**
 * The request as the proxy forwards and records it: mountebank's simplified request with
 * `injectHeaders` applied (generated predicates and behaviors see the injected headers too).
 */
export function proxiedRequest(proxy: CompiledProxy, plain: Record<string, unknown>): Record<string, unknown> {
  if (proxy.injectHeaders.length === 0) return plain;
  return { ...plain, headers: withInjectedHeaders(plain.headers as HeaderMap, proxy.injectHeaders) };
}

/** Forwards the request (raw target, rewritten) and returns the upstream response with `_proxyResponseTime`. */
export async function callUpstream(
  proxy: CompiledProxy,
  request: MockRequest,
  url: string,
  proxied: Record<string, unknown>,
  observer: ProxyObserver | undefined,
): Promise<ResponseFields> {
  const target = proxy.target;
  if (target instanceof Error) throw new ProxyError(`Invalid proxy.to: ${target.message}`);
  const started = performance.now();
  const wallStart = Date.now();
  let response: ResponseFields;
  try {
    response = await forward(target, request.method, rewrittenUrl(url, proxy.pathRewrite), proxied.headers as HeaderMap, request.rawBody, proxy.hostInjected);
  } catch (err) {
    observer?.onUpstream(request.method, 0, performance.now() - started);
    throw err;
  }
  observer?.onUpstream(request.method, Number(response.statusCode), performance.now() - started);
  response._proxyResponseTime = Date.now() - wallStart;
  return response;
}

/** The predicates a recording of this request gets (the proxy's `predicateGenerators`). */
export function proxyPredicates(proxy: CompiledProxy, proxied: Record<string, unknown>, inject: InjectedGenerator | undefined): Promise<Predicate[]> {
  return generatePredicates(structuredClone(proxied), proxy.predicateGenerators, inject);
}

/**
 * Records the served response as a new stub response where the proxy's mode puts it; resolves to the
 * stub response stored (undefined for proxyTransparent, or when the proxy's stub is gone meanwhile).
 */
export async function recordProxyResponse(
  proxy: CompiledProxy,
  source: object,
  recorder: ProxyRecorder,
  predicates: Predicate[],
  response: ResponseFields,
): Promise<Record<string, unknown> | undefined> {
  if (proxy.mode === 'proxyTransparent') return undefined;
  const recorded = recordedResponse(JSON.parse(JSON.stringify(response)) as ResponseFields, proxy);
  return (await recorder.store(source, proxy.mode, predicates, recorded)) ? recorded : undefined;
}

import { isObject, type HeaderMap } from '../../model/index.js';
import { upstreamTarget, type UpstreamTarget } from './upstream.js';
import type { ProxyMode, RecordingOptions } from './record.js';

/** A `proxy` response compiled once per stub change. */
export interface CompiledProxy extends RecordingOptions {
  /** The origin, or why `to` cannot be used (reported per request, as mountebank does). */
  target: UpstreamTarget | Error;
  mode: ProxyMode;
  injectHeaders: Array<[string, unknown]>;
  hostInjected: boolean;
  pathRewrite: { from: string; to: string } | undefined;
  predicateGenerators: unknown;
}

const MODES = new Set<string>(['proxyOnce', 'proxyAlways', 'proxyTransparent']);

export function compileProxy(config: Record<string, unknown>): CompiledProxy {
  const proxy = isObject(config.proxy) ? config.proxy : {};
  let target: UpstreamTarget | Error;
  try {
    target = upstreamTarget(String(proxy.to), proxy);
  } catch (err) {
    target = err as Error;
  }
  const injectHeaders = isObject(proxy.injectHeaders) ? Object.entries(proxy.injectHeaders) : [];
  const rewrite = proxy.pathRewrite;
  return {
    target,
    // Anything but the three known modes records like proxyOnce, mountebank's default.
    mode: typeof proxy.mode === 'string' && MODES.has(proxy.mode) ? (proxy.mode as ProxyMode) : 'proxyOnce',
    injectHeaders,
    hostInjected: injectHeaders.some(([name]) => name.toLowerCase() === 'host'),
    pathRewrite: isObject(rewrite) && typeof rewrite.from === 'string' && typeof rewrite.to === 'string' ? { from: rewrite.from, to: rewrite.to } : undefined,
    predicateGenerators: proxy.predicateGenerators,
    addWaitBehavior: proxy.addWaitBehavior === true,
    addDecorateBehavior: typeof proxy.addDecorateBehavior === 'string' ? proxy.addDecorateBehavior : undefined,
  };
}

/** The request headers with `injectHeaders` set, each replacing any spelling of its name. */
export function withInjectedHeaders(headers: HeaderMap, inject: Array<[string, unknown]>): HeaderMap {
  if (inject.length === 0) return headers;
  const out: HeaderMap = { ...headers };
  for (const [name, value] of inject) {
    const lower = name.toLowerCase();
    for (const existing of Object.keys(out)) if (existing.toLowerCase() === lower) delete out[existing];
    out[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return out;
}

/** `pathRewrite {from, to}`: a path starting with `from` has that prefix replaced by `to`; the query is kept. */
export function rewrittenUrl(url: string, rewrite: CompiledProxy['pathRewrite']): string {
  if (!rewrite) return url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (!path.startsWith(rewrite.from)) return url;
  return rewrite.to + path.slice(rewrite.from.length) + (q === -1 ? '' : url.slice(q));
}

/** Create-time checks of a `proxy` response (mountebank's dry run, plus svc's header and rewrite rules). */
import { isObject } from '../../model/index.js';

export function proxyProblems(response: Record<string, unknown>): string[] {
  if (response.proxy === undefined) return [];
  const proxy = response.proxy;
  if (!isObject(proxy)) return ["'proxy' must be an object"];
  const problems: string[] = [];
  if (proxy.to === undefined) {
    problems.push('Missing to');
  } else {
    let url: URL | undefined;
    try {
      url = new URL(String(proxy.to));
    } catch {
      problems.push(`proxy.to must be an absolute URL, got ${JSON.stringify(proxy.to)}`);
    }
    if (url?.protocol.startsWith('http') && url.pathname !== '/') {
      problems.push(`proxy.to must not contain a path '${url.pathname}'`);
    }
  }
  if (proxy.injectHeaders !== undefined) {
    if (!isObject(proxy.injectHeaders)) {
      problems.push('proxy.injectHeaders must be an object');
    } else {
      const seen = new Map<string, string>();
      for (const name of Object.keys(proxy.injectHeaders)) {
        const first = seen.get(name.toLowerCase());
        if (first !== undefined) problems.push(`proxy.injectHeaders names the header '${first}' twice ('${name}'); header names are case-insensitive`);
        else seen.set(name.toLowerCase(), name);
      }
    }
  }
  const rewrite = proxy.pathRewrite;
  if (rewrite !== undefined && !(isObject(rewrite) && typeof rewrite.from === 'string' && typeof rewrite.to === 'string')) {
    problems.push('proxy.pathRewrite must be an object with string fields from and to');
  }
  if (proxy.predicateGenerators !== undefined) {
    if (!Array.isArray(proxy.predicateGenerators)) {
      problems.push('proxy.predicateGenerators must be an array');
    } else if (!proxy.predicateGenerators.every((g) => isObject(g) && (isObject(g.matches) || typeof g.inject === 'string'))) {
      problems.push('each proxy.predicateGenerators entry needs a matches object or an inject function');
    }
  }
  if (proxy.addDecorateBehavior !== undefined && typeof proxy.addDecorateBehavior !== 'string') {
    problems.push('proxy.addDecorateBehavior must be a string, representing a JavaScript function');
  }
  return problems;
}

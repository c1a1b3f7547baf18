import type { HeaderClause, Route } from './route-table.js';

/** The parts of a request a route looks at, as the front door's transport hands them over. */
export interface RoutedRequest {
  method: string;
  /** Request target as sent (path plus optional query). */
  url: string;
  /** Alternating name, value as received. */
  rawHeaders: string[];
}

const SLASH = 47;

/** Exact host over wildcard over none (docs/front-door.md specificity). */
function hostRank(route: Route): number {
  return route.host !== undefined ? 2 : route.hostSuffix !== undefined ? 1 : 0;
}

/** Evaluation order: priority desc, then specificity (host, prefix length, header count), then id asc. */
function compareRoutes(a: Route, b: Route): number {
  return (
    b.priority - a.priority
    || hostRank(b) - hostRank(a)
    || (b.pathPrefix?.length ?? 0) - (a.pathPrefix?.length ?? 0)
    || b.headers.length - a.headers.length
    || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** `/api` matches `/api`, `/api/` and `/api/x`, never `/apix`; a prefix ending in `/` matches what it starts. */
export function prefixMatches(path: string, prefix: string): boolean {
  if (!path.startsWith(prefix)) return false;
  return path.length === prefix.length || prefix.charCodeAt(prefix.length - 1) === SLASH || path.charCodeAt(prefix.length) === SLASH;
}

/** The Host header's name, lowercased and without `:port` (`[v6]` kept whole); undefined when absent. */
export function hostOf(rawHeaders: string[]): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    const value = rawHeaders[i + 1].trim();
    const end = value.startsWith('[') ? value.indexOf(']') + 1 : value.indexOf(':');
    return (end > 0 ? value.slice(0, end) : value).toLowerCase();
  }
  return undefined;
}

/** Path part of a request target (the query string cut off). */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function headerMatches(rawHeaders: string[], clause: HeaderClause): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === clause.name.length && rawHeaders[i + 1] === clause.value && name.toLowerCase() === clause.name) return true;
  }
  return false;
}

function headersMatch(rawHeaders: string[], clauses: HeaderClause[]): boolean {
  for (const clause of clauses) {
    if (!headerMatches(rawHeaders, clause)) return false;
  }
  return true;
}

function hostMatches(route: Route, host: string | undefined): boolean {
  if (route.host !== undefined) return host === route.host;
  if (route.hostSuffix !== undefined) {
    return host !== undefined && host.length > route.hostSuffix.length && host.endsWith(route.hostSuffix);
  }
  return true;
}

/**
 * A route table ready for dispatch: disabled routes dropped and the rest sorted once, when the table is
 * loaded; the first route whose every declared clause holds wins.
 */
export class RouteMatcher {
  /** Enabled routes in evaluation order. */
  readonly order: readonly Route[];
  /** Every route of the table, disabled ones included. */
  readonly size: number;
  private readonly readsHost: boolean;

  constructor(routes: readonly Route[]) {
    this.size = routes.length;
    this.order = routes.filter((route) => route.enabled).sort(compareRoutes);
    this.readsHost = this.order.some((route) => hostRank(route) > 0);
  }

  resolve(request: RoutedRequest): Route | undefined {
    if (this.order.length === 0) return undefined;
    const path = pathOf(request.url);
    const host = this.readsHost ? hostOf(request.rawHeaders) : undefined;
    for (const route of this.order) {
      if (route.method !== undefined && route.method !== request.method) continue;
      if (!hostMatches(route, host)) continue;
      if (route.pathPrefix !== undefined && !prefixMatches(path, route.pathPrefix)) continue;
      if (!headersMatch(request.rawHeaders, route.headers)) continue;
      return route;
    }
    return undefined;
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../../engine/model/index.js';

export interface AdminRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  params: Record<string, string>;
  headers: IncomingMessage['headers'];
  /** Raw body bytes (already read). */
  body: Buffer;
  /** `http://<Host>` of the admin request, for `_links` (mountebank uses absolute links). */
  baseUrl: string;
  raw: IncomingMessage;
}

export interface AdminReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Pre-serialised text body (metrics, PEM); otherwise `body` is sent as JSON. */
  text?: string;
  /** Pre-serialised JSON body (UTF-8, or its chunks in order), sent with the headers `body` would get. */
  json?: string | Buffer | readonly Uint8Array[];
}

export type RouteHandler = (request: AdminRequest, response: ServerResponse) => Promise<AdminReply | void> | AdminReply | void;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
  /** Ends in `*` (captures the rest). */
  rest: boolean;
  /** Its place in the order routes were added: the first that fits a request wins. */
  order: number;
}

/** A route found for a request: its handler and the path parameters it captured. */
export interface FoundRoute {
  handler: RouteHandler;
  params: Record<string, string>;
}

/** The routes that fit one segment count: by their last segment when it is a literal, the others apart. */
interface LengthIndex {
  byLast: Map<string, Route[]>;
  /** Last segment a parameter, or a trailing `*`. */
  open: Route[];
}

/** Segment counts whose indexes are kept; longer paths are matched against an index built for them. */
const KEPT_LENGTHS = 32;

/** The first route of `routes` (in order) that fits the path and method, and whether any fits the path's literals. */
function firstFit(routes: readonly Route[] | undefined, method: string, parts: string[]): { route: Route | undefined; exists: boolean } {
  let exists = false;
  for (const route of routes ?? []) {
    if (!literalsMatch(route.segments, parts)) continue;
    if (route.method === method || route.method === '*') return { route, exists: true };
    exists = true;
  }
  return { route: undefined, exists };
}

/**
 * Tiny segment router: `:name` captures one segment, a trailing `*` captures the rest. Routes are tried
 * in the order they were added, but only those whose segment count fits the path's and, when their last
 * segment is a literal, whose last segment is the path's (the indexes are kept per count): a poll of
 * `/imposters/{port}/savedRequests` compares the two routes ending so and the few ending in a parameter,
 * not every three-segment route. Literals are compared before any parameter is decoded or any object made.
 */
export class Router {
  private readonly routes: Route[] = [];
  private readonly byLength = new Map<number, LengthIndex>();

  on(method: string, pattern: string, handler: RouteHandler): this {
    const segments = pattern.split('/').filter(Boolean);
    this.routes.push({ method, segments, handler, rest: segments.at(-1) === '*', order: this.routes.length });
    this.byLength.clear();
    return this;
  }

  private index(length: number): LengthIndex {
    const kept = this.byLength.get(length);
    if (kept) return kept;
    const built: LengthIndex = { byLast: new Map(), open: [] };
    for (const route of this.routes) {
      if (!(route.rest ? route.segments.length - 1 <= length : route.segments.length === length)) continue;
      const last = route.segments.at(-1);
      if (last === undefined || route.rest || last.charCodeAt(0) === 58 /* : */) {
        built.open.push(route);
        continue;
      }
      const list = built.byLast.get(last);
      if (list) list.push(route);
      else built.byLast.set(last, [route]);
    }
    if (length <= KEPT_LENGTHS) this.byLength.set(length, built);
    return built;
  }

  /** The handler and captured params, `'method'` when the path exists under another method, or undefined. */
  find(method: string, path: string): FoundRoute | 'method' | undefined {
    const parts = path.split('/').filter(Boolean);
    const { byLast, open } = this.index(parts.length);
    const named = firstFit(parts.length === 0 ? undefined : byLast.get(parts[parts.length - 1]!), method, parts);
    const other = firstFit(open, method, parts);
    const first = named.route === undefined || (other.route !== undefined && other.route.order < named.route.order) ? other.route : named.route;
    if (first !== undefined) return { handler: first.handler, params: paramsOf(first.segments, parts) };
    return named.exists || other.exists ? 'method' : undefined;
  }
}

/** A path parameter, percent-decoded; a malformed escape (`%E0`) is the client's error, a 400. */
function decodeParam(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw errors.badRequest(`Malformed percent-encoding in path segment '${segment.slice(0, 200)}'`);
  }
}

/** The pattern's literal segments against the path's (the segment count already fits). */
function literalsMatch(pattern: string[], parts: string[]): boolean {
  for (let i = 0; i < pattern.length; i += 1) {
    const seg = pattern[i]!;
    if (seg === '*') return true;
    if (seg.charCodeAt(0) !== 58 /* : */ && seg !== parts[i]) return false;
  }
  return true;
}

function paramsOf(pattern: string[], parts: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) {
    const seg = pattern[i]!;
    if (seg === '*') params['*'] = parts.slice(i).join('/');
    else if (seg.startsWith(':')) params[seg.slice(1)] = decodeParam(parts[i]!);
  }
  return params;
}

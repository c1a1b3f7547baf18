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
}

/** A route found for a request: its handler and the path parameters it captured. */
export interface FoundRoute {
  handler: RouteHandler;
  params: Record<string, string>;
}

/** Segment counts whose candidate lists are kept; longer paths are matched against every route. */
const KEPT_LENGTHS = 32;

/**
 * Tiny segment router: `:name` captures one segment, a trailing `*` captures the rest. Routes are tried
 * in the order they were added, but only those whose segment count fits the path's (the lists are kept
 * per count), literal segments are compared before any parameter is decoded or any object made: a poll
 * of a route added late costs what one added first does.
 */
export class Router {
  private readonly routes: Route[] = [];
  private readonly byLength = new Map<number, Route[]>();

  on(method: string, pattern: string, handler: RouteHandler): this {
    const segments = pattern.split('/').filter(Boolean);
    this.routes.push({ method, segments, handler, rest: segments.at(-1) === '*' });
    this.byLength.clear();
    return this;
  }

  private candidates(length: number): Route[] {
    const kept = this.byLength.get(length);
    if (kept) return kept;
    const fits = this.routes.filter((r) => (r.rest ? r.segments.length - 1 <= length : r.segments.length === length));
    if (length <= KEPT_LENGTHS) this.byLength.set(length, fits);
    return fits;
  }

  /** The handler and captured params, `'method'` when the path exists under another method, or undefined. */
  find(method: string, path: string): FoundRoute | 'method' | undefined {
    const parts = path.split('/').filter(Boolean);
    let pathExists = false;
    for (const route of this.candidates(parts.length)) {
      if (!literalsMatch(route.segments, parts)) continue;
      const params = paramsOf(route.segments, parts);
      if (route.method === method || route.method === '*') return { handler: route.handler, params };
      pathExists = true;
    }
    return pathExists ? 'method' : undefined;
  }
}

/** A path parameter, percent-decoded; a malformed escape (`%E0`) is the client's error, a 400. */
function decodeParam(segment: string): string {
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

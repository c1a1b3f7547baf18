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
  /** Pre-serialised JSON body (UTF-8), sent with the headers `body` would get. */
  json?: string | Buffer;
}

export type RouteHandler = (request: AdminRequest, response: ServerResponse) => Promise<AdminReply | void> | AdminReply | void;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

/** Tiny segment router: `:name` captures one segment, a trailing `*` captures the rest. */
export class Router {
  private readonly routes: Route[] = [];

  on(method: string, pattern: string, handler: RouteHandler): this {
    this.routes.push({ method, segments: pattern.split('/').filter(Boolean), handler });
    return this;
  }

  /** The handler and captured params, `'method'` when the path exists under another method, or undefined. */
  find(method: string, path: string): { handler: RouteHandler; params: Record<string, string> } | 'method' | undefined {
    const parts = path.split('/').filter(Boolean);
    let pathExists = false;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
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

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) {
    const seg = pattern[i];
    if (seg === '*') {
      params['*'] = parts.slice(i).join('/');
      return params;
    }
    if (i >= parts.length) return undefined;
    if (seg.startsWith(':')) params[seg.slice(1)] = decodeParam(parts[i]);
    else if (seg !== parts[i]) return undefined;
  }
  return parts.length === pattern.length ? params : undefined;
}

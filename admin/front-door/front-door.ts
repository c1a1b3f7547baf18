import type { RouteTableTarget } from '../../engine/config/index.js';
import type { ImposterManager } from '../../engine/manager/index.js';
import type { WireRequest } from '../../engine/model/index.js';
import { errorOf, errors, type SvcError } from '../../engine/model/index.js';
import { formatListenAddress, isHttp2Disabled, parseListenAddress, type OutgoingHeaders, type ResponseSink } from '../../engine/transport/index.js';
import { pathOf, RouteMatcher } from './route-matcher.js';
import { parseRoutes, type Route } from './route-table.js';

/** `/__svc/{port}` then `/`, `?` or the end: the gateway addressing (docs/imposters.md) on the front door. */
const GATEWAY = /^\/__svc\/(\d+)(?=[/?]|$)\/?/;
const NOT_FOUND_HEADERS: OutgoingHeaders = [['Content-Type', 'application/json']];
const NO_ROUTE_HEADERS: OutgoingHeaders = [
  ['Content-Type', 'application/json'],
  ['x-svc-front-door', 'no-route'],
];

function envelope(error: SvcError): Buffer {
  return Buffer.from(JSON.stringify(error.envelope()));
}

function noRoute(request: WireRequest): Buffer {
  const message = `no front-door route for ${request.method} ${pathOf(request.url)}`;
  return envelope(errorOf('no_route', message));
}

/** The Host header list with every `Host` replaced by one carrying `host` (added when there was none). */
function withHost(rawHeaders: string[], host: string): string[] {
  const out: string[] = [];
  let placed = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() !== 'host') out.push(rawHeaders[i], rawHeaders[i + 1]);
    else if (!placed) {
      out.push(rawHeaders[i], host);
      placed = true;
    }
  }
  if (!placed) out.unshift('Host', host);
  return out;
}

/** The request as the route hands it on: prefix stripped (query kept), Host rewritten; untouched otherwise. */
function routed(request: WireRequest, route: Route): WireRequest {
  const { stripPrefix, setHost } = route.target;
  if (!stripPrefix && setHost === undefined) return request;
  let url = request.url;
  if (stripPrefix) {
    const rest = url.slice(route.pathPrefix!.length);
    url = rest.startsWith('/') ? rest : '/' + rest;
  }
  const rawHeaders = setHost === undefined ? request.rawHeaders : withHost(request.rawHeaders, setHost);
  return { ...request, url, rawHeaders };
}

/**
 * The route table the front door dispatches with, and the config sources' route target: a table is
 * validated and compiled whole, then swapped in one assignment (or not at all).
 */
export class FrontDoorRoutes implements RouteTableTarget {
  private matcher = new RouteMatcher([]);

  get current(): RouteMatcher {
    return this.matcher;
  }

  /** Throws the SvcError of `parseRoutes` for an invalid table. */
  prepare(routes: unknown): () => void {
    const next = new RouteMatcher(parseRoutes(routes));
    return () => {
      this.matcher = next;
    };
  }
}

export interface FrontDoorOptions {
  manager: ImposterManager;
  /** `--front-door`: `host:port`, `:port` or a port. */
  address: string;
  routes: FrontDoorRoutes;
}

export interface FrontDoor {
  readonly port: number;
  /** `host:port` it listens on, for logs and `GET /config`. */
  readonly address: string;
  close(): Promise<void>;
}

/**
 * docs/front-door.md: one listener on the imposters' own engine, dispatching in-process to `Imposter.handle`, so a
 * request is served as if it arrived on the imposter's port (recording, matching, faults, proxies).
 * Resolution: route table, then `/__svc/{port}/...`, then 404 `x-svc-front-door: no-route`.
 */
export async function startFrontDoor(options: FrontDoorOptions): Promise<FrontDoor> {
  const { manager, routes } = options;
  const address = parseListenAddress(options.address);
  if (address === undefined) throw new Error(`front door address must be [host:]port, got '${options.address}'`);

  function dispatch(request: WireRequest, sink: ResponseSink): void {
    const route = routes.current.resolve(request);
    if (route !== undefined) {
      const imposter = manager.get(route.target.port);
      if (imposter === undefined) {
        sink.send(404, NOT_FOUND_HEADERS, envelope(errors.noSuchResource(`route ${route.id}: no imposter on port ${route.target.port}`)));
        return;
      }
      imposter.handle(routed(request, route), sink);
      return;
    }
    const gateway = GATEWAY.exec(request.url);
    const imposter = gateway === null ? undefined : manager.get(Number(gateway[1]));
    if (imposter !== undefined) {
      imposter.handle({ ...request, url: '/' + request.url.slice(gateway![0].length) }, sink);
      return;
    }
    sink.send(404, NO_ROUTE_HEADERS, noRoute(request));
  }

  const listener = await manager.listen(
    {
      protocol: 'http',
      port: address.port,
      host: address.host,
      http2: !isHttp2Disabled(),
      maxBodyBytes: manager.maxBodyBytes,
      timeouts: manager.options.timeouts,
      bodyBudget: manager.bodyBudget,
      allowConnection: manager.options.allowConnection,
    },
    dispatch,
  );
  return { port: listener.port, address: formatListenAddress(address, listener.port), close: () => listener.close() };
}

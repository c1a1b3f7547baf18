import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ImposterManager } from '../engine/manager/index.js';
import { errors, errorText, isSvcError, type SvcError, type WireRequest } from '../engine/model/index.js';
import type { Logger } from '../engine/log/index.js';
import { Router, type AdminRequest, type FoundRoute, type AdminSettings, acceptH2c, reply, sendError, answerClientErrorsWithEnvelope } from './http/index.js';
import { dispatchGateway, dispatchWireGateway, gatewayTarget } from './gateway.js';
import { acceptAnyMethod } from './any-method.js';
import type { OutgoingHeaders, ResponseSink } from '../engine/transport/index.js';
import {
  flowStateRoutes,
  imposterRoutes,
  interceptRoutes,
  miscRoutes,
  reloadRoutes,
  requestRoutes,
  scenarioRoutes,
  spaceRoutes,
  stubRoutes,
  type Reloader,
} from './routes/index.js';
import { EventHub, eventRoutes } from './events/index.js';
import { InterceptControl, imposterProtocols } from './intercept/index.js';
import { declaredTooLarge, EMPTY_BODY, hasNoBody, MAX_ADMIN_BODY, readBody } from './request-body.js';
import { requestTarget, type RequestTarget } from './request-target.js';
import { dashboardResponder, dashboardRoutes } from './dashboard/index.js';
import { freshJournals } from './fleet-reads.js';

const GATEWAY = /^\/__svc\/(\d+)(?:\/(.*))?$/s;

export interface AdminServer {
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

export interface AdminServerOptions {
  manager: ImposterManager;
  settings: AdminSettings;
  log: Logger;
  /** Extra routes (events...) registered by the process that owns them. */
  extend?: (router: Router) => void;
  /** The startup sources behind `POST /admin/reload`; without it the reload is a 200 no-op. */
  reloader?: Reloader;
  /** The event stream behind `GET /events`; when omitted one is made and closed with the server. */
  events?: EventHub;
  /** `--localOnly` / `--ipWhitelist` (transport connectionFilter): refused connections are destroyed on accept. */
  allowConnection?: (remoteAddress: string | undefined) => boolean;
  /**
   * The intercept listener slot behind `/intercept*` (docs/intercept.md). When omitted the server owns one and
   * stops it on close; pass the C ABI's control to share its slot, or `false` for no intercept routes.
   */
  intercept?: InterceptControl | false;
  /** Largest request body read (default 64 MiB); a larger one is answered 413. */
  maxBodyBytes?: number;
}

function authorized(request: IncomingMessage, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  return request.headers.authorization === apiKey || request.headers['x-api-key'] === apiKey;
}

function rawHeaderValue(raw: string[], lowerName: string): string | undefined {
  for (let k = 0; k < raw.length; k += 2) if (raw[k].toLowerCase() === lowerName) return raw[k + 1];
  return undefined;
}

/** Answers on this sink close the connection: the next request opens one that is sniffed afresh. */
function closingSink(sink: ResponseSink): ResponseSink {
  const withClose = (headers: OutgoingHeaders): OutgoingHeaders => [
    ...headers.filter(([name]) => name.toLowerCase() !== 'connection'),
    ['Connection', 'close'],
  ];
  return {
    protocol: sink.protocol,
    send: (statusCode, headers, body) => sink.send(statusCode, withClose(headers), body),
    reset: () => sink.reset(),
    closeEmpty: () => sink.closeEmpty(),
    writeRawAndClose: (bytes) => sink.writeRawAndClose(bytes),
  };
}

/**
 * A request with a method node:http cannot parse (acceptAnyMethod): the gateway serves it through the
 * imposter's own code path; anywhere else it gets the answer an unknown route gets.
 */
function anyMethodHandler(manager: ImposterManager, apiKey: string | undefined): (wire: WireRequest, sink: ResponseSink) => void {
  const sendEnvelope = (sink: ResponseSink, err: SvcError): void => {
    sink.send(err.status, [['Content-Type', 'application/json; charset=utf-8']], Buffer.from(JSON.stringify(err.envelope(), null, 2)));
  };
  return (wire, rawSink) => {
    const sink = closingSink(rawSink);
    const target = gatewayTarget(wire.url);
    if (target !== undefined) {
      if (!dispatchWireGateway(manager, target.port, { ...wire, url: target.url }, sink)) {
        sendEnvelope(sink, errors.noSuchResource(`no imposter on port ${target.port}`));
      }
      return;
    }
    const given = [rawHeaderValue(wire.rawHeaders, 'authorization'), rawHeaderValue(wire.rawHeaders, 'x-api-key')];
    if (apiKey !== undefined && !given.includes(apiKey)) {
      sendEnvelope(sink, errors.unauthorized());
      return;
    }
    let path: string;
    try {
      path = requestTarget(wire.url).pathname;
    } catch (err) {
      // requestTarget refuses an unparseable target with a 400 SvcError.
      sendEnvelope(sink, err as SvcError);
      return;
    }
    sendEnvelope(sink, errors.notFoundRoute(`${wire.method} ${path}`));
  };
}

/**
 * An admin request as its route sees it. The query is parsed when a route first reads it (most do not),
 * through a getter on this class. A getter in an object literal instead made V8 keep every request's
 * node:http objects past young-generation collections: under admin load each scavenge promoted about
 * 12 MB and took 20-100 ms, against 0.3 ms with this class (measured with --trace-gc).
 */
class RoutedRequest implements AdminRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  private parsedQuery: URLSearchParams | undefined;

  constructor(
    readonly raw: IncomingMessage,
    private readonly target: RequestTarget,
    readonly params: Record<string, string>,
    readonly body: Buffer,
    readonly baseUrl: string,
  ) {
    this.method = raw.method ?? 'GET';
    this.path = target.pathname;
    this.headers = raw.headers;
  }

  get query(): URLSearchParams {
    this.parsedQuery ??= new URLSearchParams(this.target.search);
    return this.parsedQuery;
  }
}

/** The admin plane on node:http (its features matter more than raw speed here). */
export function createAdminServer(options: AdminServerOptions): Server {
  const { manager, settings, log } = options;
  const router = new Router();
  miscRoutes(router, manager, settings, log);
  imposterRoutes(router, manager);
  stubRoutes(router, manager);
  requestRoutes(router, manager);
  scenarioRoutes(router, manager);
  spaceRoutes(router, manager);
  flowStateRoutes(router, manager);
  reloadRoutes(router, options.reloader);
  dashboardRoutes(router, manager);
  const dashboard = dashboardResponder((request) => authorized(request, settings.apiKey));
  const events = options.events ?? new EventHub({ engineVersion: settings.version });
  const unobserve = manager.observe(events);
  eventRoutes(router, manager, events);
  const intercept = options.intercept ?? new InterceptControl({ log, protocolOf: imposterProtocols(manager) });
  if (intercept) interceptRoutes(router, intercept, settings, () => manager.allowInjection);
  options.extend?.(router);

  const maxBody = options.maxBodyBytes ?? MAX_ADMIN_BODY;

  /**
   * Answers one request. Synchronous to the route's handler when the request has no body and no fleet
   * journal to bring up to date (most reads): each await is a turn of microtasks on every admin call.
   */
  function handle(request: IncomingMessage, response: ServerResponse): Promise<void> | undefined {
    const target = requestTarget(request.url);
    if (declaredTooLarge(request, maxBody)) throw errors.payloadTooLarge(maxBody);
    const gateway = GATEWAY.exec(target.pathname);
    if (gateway) return forwardToGateway(request, response, gateway[1]!);
    if (dashboard(request, target.pathname, response)) return undefined;
    // Checked on the head: an unauthenticated client cannot make the server buffer its body.
    if (!authorized(request, settings.apiKey)) throw errors.unauthorized();
    const method = request.method ?? 'GET';
    const found = router.find(method, target.pathname);
    if (found === undefined || found === 'method') throw errors.notFoundRoute(`${method} ${target.pathname}`);
    if (hasNoBody(request) && !manager.options.fleet) return answer(found, request, target, EMPTY_BODY, response);
    return (async () => {
      const body = await readBody(request, maxBody);
      await freshJournals(manager, target.pathname);
      await answer(found, request, target, body, response);
    })();
  }

  async function forwardToGateway(request: IncomingMessage, response: ServerResponse, port: string): Promise<void> {
    const body = await readBody(request, maxBody);
    const rest = (request.url ?? '').replace(/^\/__svc\/\d+\/?/, '');
    if (!dispatchGateway(manager, Number(port), rest, request, body, response)) {
      sendError(response, errors.noSuchResource(`no imposter on port ${port}`), { compat: manager.compat });
    }
  }

  function answer(found: FoundRoute, request: IncomingMessage, target: RequestTarget, body: Buffer, response: ServerResponse): Promise<void> | undefined {
    const baseUrl = `http://${request.headers.host ?? request.headers[':authority'] ?? `localhost:${settings.port}`}`;
    const adminRequest = new RoutedRequest(request, target, found.params, body, baseUrl);
    const result = found.handler(adminRequest, response);
    if (result instanceof Promise) {
      return result.then((settled) => {
        if (settled) reply(response, settled);
      });
    }
    if (result) reply(response, result);
    return undefined;
  }

  /** Never throws: whatever a request raises is answered (or its connection cut) and logged, never fatal. */
  const answerFailure = (request: IncomingMessage, response: ServerResponse, err: unknown): void => {
    try {
      if (!isSvcError(err)) log.error(`admin ${request.method} ${request.url}: ${(err as Error)?.stack ?? String(err)}`);
      const failure = isSvcError(err) ? err : errors.internal(errorText(err));
      // A body left unread (refused before or while reading it) is not worth draining: close after the answer.
      // A request without one may be refused before node:http marks it complete (the head's own turn).
      const unread = !request.complete && !hasNoBody(request);
      sendError(response, failure, { headers: unread ? { Connection: 'close' } : {}, compat: manager.compat });
    } catch {
      response.destroy();
    }
  };

  const logCalls = log.isEnabled('debug');
  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    if (logCalls) {
      const started = performance.now();
      response.once('finish', () => {
        log.debug(`admin ${request.method} ${request.url} => ${response.statusCode} in ${Math.round(performance.now() - started)} ms`);
      });
    }
    // node:http hands over a pipelined request while the one before it on the connection is still being
    // answered: it waits for that one, so a read pipelined after a write sees the write (HTTP/2 streams
    // are concurrent by design and are not chained).
    const socket = request.httpVersionMajor === 1 ? request.socket : undefined;
    const before = socket && inFlight.get(socket);
    const settled = before ? before.then(() => answerSafely(request, response)) : answerSafely(request, response);
    if (socket && settled) {
      inFlight.set(socket, settled);
      void settled.then(() => {
        if (inFlight.get(socket) === settled) inFlight.delete(socket);
      });
    }
  };
  /** A request's answer; the promise (settled, never rejected) while it is still being worked out. */
  const answerSafely = (request: IncomingMessage, response: ServerResponse): Promise<void> | undefined => {
    try {
      return handle(request, response)?.catch((err: unknown) => answerFailure(request, response, err));
    } catch (err) {
      answerFailure(request, response, err);
      return undefined;
    }
  };
  const inFlight = new WeakMap<Socket, Promise<void>>();
  const server = createServer({ keepAliveTimeout: 5000 }, onRequest);
  acceptAnyMethod(server, { handler: anyMethodHandler(manager, settings.apiKey), maxBodyBytes: MAX_ADMIN_BODY, idleMs: server.requestTimeout });
  acceptH2c(server, onRequest);
  answerClientErrorsWithEnvelope(server);
  const allowConnection = options.allowConnection;
  if (allowConnection) {
    server.on('connection', (socket: Socket) => {
      if (!allowConnection(socket.remoteAddress)) socket.destroy();
    });
  }
  // Accept failures (EMFILE...) arrive as 'error' once listening. An embedder serving through listenAdmin
  // has no other listener, and an unheard 'error' ends the process: logged here (the CLI's plane also
  // stops on a fatal one). Bind failures before that are listenAdmin's rejection.
  let watchingAccepts = false;
  server.on('listening', () => {
    if (watchingAccepts) return;
    watchingAccepts = true;
    server.on('error', (err: NodeJS.ErrnoException) => log.warn(`admin plane: accepting a connection failed: ${err.message}`));
  });
  server.on('close', () => {
    unobserve();
    if (!options.events) events.close();
    if (options.intercept === undefined && intercept) void intercept.stop();
  });
  return server;
}

/** Binds the admin server; resolves once listening. */
export function listenAdmin(server: Server, port: number, host?: string): Promise<AdminServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const bound = (server.address() as AddressInfo).port;
      resolve({
        port: bound,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

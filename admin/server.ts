import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Compat, ImposterManager } from '../engine/manager/index.js';
import { errors, isSvcError, type ErrorEntry, type SvcError } from '../engine/model/index.js';
import type { Logger } from '../engine/log/index.js';
import { Router, type AdminReply, type AdminRequest } from './router.js';
import type { AdminSettings } from './settings.js';
import { dispatchGateway } from './gateway.js';
import { acceptH2c } from './h2c.js';
import { imposterRoutes } from './routes/imposters.js';
import { stubRoutes } from './routes/stubs.js';
import { requestRoutes } from './routes/requests.js';
import { scenarioRoutes } from './routes/scenarios.js';
import { spaceRoutes } from './routes/spaces.js';
import { flowStateRoutes } from './routes/flow-state.js';
import { miscRoutes } from './routes/misc.js';
import { reloadRoutes, type Reloader } from './routes/reload.js';
import { EventHub, eventRoutes } from './events/index.js';
import { InterceptControl, imposterProtocols } from './intercept/index.js';
import { interceptRoutes } from './routes/intercept.js';

const MAX_ADMIN_BODY = 64 * 1024 * 1024;
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
   * The intercept listener slot behind `/intercept*` (SPEC §4.9). When omitted the server owns one and
   * stops it on close; pass the C ABI's control to share its slot, or `false` for no intercept routes.
   */
  intercept?: InterceptControl | false;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ADMIN_BODY) {
        reject(new Error('admin request body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body, null, 2);
  // Route headers first, as mountebank's express answers (`Location` / `Vary` before `Content-Type`).
  response.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

/** mountebank 2.9.1's error entries have no `type` (SPEC §7) nor `path`; `--compat mountebank` leaves them out. */
function sendError(response: ServerResponse, err: SvcError, compat?: Compat): void {
  const envelope = err.envelope();
  if (compat === 'mountebank') envelope.errors = envelope.errors.map(({ type: _type, path: _path, ...entry }) => entry as ErrorEntry);
  sendJson(response, err.status, envelope);
}

function reply(response: ServerResponse, result: AdminReply): void {
  if (result.text !== undefined) {
    response.writeHead(result.status, { 'Content-Length': Buffer.byteLength(result.text), ...result.headers });
    response.end(result.text);
    return;
  }
  if (result.body === undefined) {
    response.writeHead(result.status, result.headers ?? {});
    response.end();
    return;
  }
  sendJson(response, result.status, result.body, result.headers);
}

function authorized(request: IncomingMessage, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  return request.headers.authorization === apiKey || request.headers['x-api-key'] === apiKey;
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
  const events = options.events ?? new EventHub({ engineVersion: settings.version });
  const unobserve = manager.observe(events);
  eventRoutes(router, manager, events);
  const intercept = options.intercept ?? new InterceptControl({ log, protocolOf: imposterProtocols(manager) });
  if (intercept) interceptRoutes(router, intercept, settings, () => manager.allowInjection);
  options.extend?.(router);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const body = await readBody(request);
    const gateway = GATEWAY.exec(url.pathname);
    if (gateway) {
      const rest = (request.url ?? '').replace(/^\/__svc\/\d+\/?/, '');
      if (!dispatchGateway(manager, Number(gateway[1]), rest, request, body, response)) {
        sendError(response, errors.noSuchResource(`no imposter on port ${gateway[1]}`), manager.compat);
      }
      return;
    }
    if (!authorized(request, settings.apiKey)) {
      sendError(response, errors.unauthorized(), manager.compat);
      return;
    }
    const method = request.method ?? 'GET';
    const found = router.find(method, url.pathname);
    if (found === undefined || found === 'method') {
      sendError(response, errors.notFoundRoute(`${method} ${url.pathname}`), manager.compat);
      return;
    }
    const adminRequest: AdminRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      params: found.params,
      headers: request.headers,
      body,
      baseUrl: `http://${request.headers.host ?? request.headers[':authority'] ?? `localhost:${settings.port}`}`,
      raw: request,
    };
    const result = await found.handler(adminRequest, response);
    if (result) reply(response, result);
  }

  const logCalls = log.isEnabled('debug');
  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    if (logCalls) {
      const started = performance.now();
      response.once('finish', () => {
        log.debug(`admin ${request.method} ${request.url} => ${response.statusCode} in ${Math.round(performance.now() - started)} ms`);
      });
    }
    handle(request, response).catch((err: unknown) => {
      if (!isSvcError(err)) log.error(`admin ${request.method} ${request.url}: ${(err as Error)?.stack ?? String(err)}`);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendError(response, isSvcError(err) ? err : errors.internal((err as Error)?.message ?? String(err)), manager.compat);
    });
  };
  const server = createServer({ keepAliveTimeout: 5000 }, onRequest);
  acceptH2c(server, onRequest);
  const allowConnection = options.allowConnection;
  if (allowConnection) {
    server.on('connection', (socket: Socket) => {
      if (!allowConnection(socket.remoteAddress)) socket.destroy();
    });
  }
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
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
      });
    });
  });
}

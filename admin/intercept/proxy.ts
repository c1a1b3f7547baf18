/**
 * The intercepting forward proxy (docs/intercept.md): absolute-form HTTP requests and CONNECT tunnels on
 * one port. A tunnel whose first byte opens a TLS handshake is terminated with a leaf for the SNI
 * name (the CONNECT host when the client sends none); any other tunnel is read as cleartext HTTP.
 * Every request then goes through the rules: serve, forward to a local imposter, or pass through
 * to the real origin.
 */
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Logger } from '../../engine/log/index.js';
import { errorBody, statusOf, type ErrorSlug, errorText } from '../../engine/model/index.js';
import type { JsScriptHost } from '../../engine/script/js/index.js';
import type { CertificateAuthority } from './certificates.js';
import { runInjectRule } from './inject.js';
import type { InterceptRule, RuleStore } from './rules.js';

export type OriginProtocol = 'http' | 'https';

/** Where a request was headed. */
interface Target {
  protocol: OriginProtocol;
  /** Without IPv6 brackets. */
  hostname: string;
  port: number;
  /** Absolute-form requests: the URI's authority, which replaces the Host header (RFC 9112 §3.2.2). */
  authority?: string;
}

export interface ProxyDependencies {
  rules: RuleStore;
  ca: CertificateAuthority;
  /** The protocol of the imposter on a local port, when this server runs it. */
  protocolOf?: (port: number) => OriginProtocol | undefined;
  /** The sandbox for inject rules, made on first use. */
  scripts: () => JsScriptHost;
  log: Logger;
}

const TLS_HANDSHAKE = 0x16;
/** Bound on a tunnel's handshake when the proxy server sets no head timeout. */
const HANDSHAKE_MS = 60_000;
// Connection-scoped headers (RFC 9110 §7.6.1) and the proxy's own: never relayed.
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function relayedHeaders(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const listed = String(headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .map((name) => name.trim());
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.includes(name)) continue;
    result[name] = value;
  }
  return result;
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** `host:port` of a CONNECT request line; undefined when it is not one. */
function parseAuthority(authority: string | undefined): { hostname: string; port: number } | undefined {
  const found = /^(\[[^\]]+\]|[^:/\s]+):(\d{1,5})$/.exec(authority ?? '');
  if (!found) return undefined;
  const port = Number(found[2]);
  return port >= 1 && port <= 65535 ? { hostname: unbracket(found[1]), port } : undefined;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '::1' || hostname.startsWith('127.');
}

function sendError(response: ServerResponse, type: ErrorSlug, message: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = errorBody(type, message);
  response.writeHead(statusOf(type), { 'Content-Type': 'application/json', 'Content-Length': body.length });
  response.end(body);
}

export class InterceptProxy {
  private readonly outer: Server;
  /** Serves the requests read out of tunnels; never listens itself. */
  private readonly inner: Server;
  private readonly tunnels = new Map<Socket, Target>();
  private readonly httpAgent = new HttpAgent({ keepAlive: true });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, rejectUnauthorized: false });
  private boundPort = 0;

  private constructor(private readonly deps: ProxyDependencies) {
    this.outer = createServer((request, response) => this.onProxyRequest(request, response));
    this.outer.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => this.onConnect(request, socket, head));
    this.outer.on('clientError', (_err, socket: Socket) => socket.destroy());
    this.inner = createServer((request, response) => this.onTunnelRequest(request, response));
    this.inner.on('clientError', (_err, socket: Socket) => socket.destroy());
  }

  /** Binds host:port (0 = OS-assigned); rejects with the bind error. */
  static listen(host: string, port: number, deps: ProxyDependencies): Promise<InterceptProxy> {
    const proxy = new InterceptProxy(deps);
    return new Promise((resolve, reject) => {
      proxy.outer.once('error', reject);
      proxy.outer.listen(port, host, () => {
        proxy.outer.off('error', reject);
        // Accept failures (EMFILE...) arrive as 'error' once listening: logged, never fatal.
        proxy.outer.on('error', (err) => deps.log.warn(`intercept proxy: ${err.message}`));
        proxy.boundPort = (proxy.outer.address() as AddressInfo).port;
        resolve(proxy);
      });
    });
  }

  get address(): AddressInfo {
    return this.outer.address() as AddressInfo;
  }

  /** The listening server (watched for accept errors by the metrics plane). */
  get server(): Server {
    return this.outer;
  }

  /** Stops listening and ends every connection and tunnel; resolves once the port is released. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.outer.close(() => resolve());
      this.outer.closeAllConnections();
      // Every connection the inner server reads is a tunnel socket (raw or TLS) listed here.
      for (const socket of this.tunnels.keys()) socket.destroy();
      this.tunnels.clear();
      this.httpAgent.destroy();
      this.httpsAgent.destroy();
    });
  }

  private onProxyRequest(request: IncomingMessage, response: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      sendError(response, 'bad_proxy_request', 'the intercept proxy takes absolute-form requests (http://host/path) and CONNECT');
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      sendError(response, 'bad_proxy_request', `unsupported scheme ${url.protocol}`);
      return;
    }
    const protocol = url.protocol === 'https:' ? 'https' : 'http';
    const target: Target = { protocol, hostname: unbracket(url.hostname), port: Number(url.port) || (protocol === 'https' ? 443 : 80), authority: url.host };
    this.dispatch(request, response, target, `${url.pathname}${url.search}`);
  }

  private onConnect(request: IncomingMessage, socket: Socket, head: Buffer): void {
    // node:http hands a CONNECT socket over without its own 'error' listener: a client's RST, even
    // after the 400 below, would otherwise be an uncaught error.
    socket.on('error', () => socket.destroy());
    const authority = parseAuthority(request.url);
    if (!authority) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.tunnels.set(socket, { protocol: 'https', ...authority });
    socket.once('close', () => this.tunnels.delete(socket));
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    // Until the tunnel's first request can be read (its TLS handshake done) no server bounds the socket:
    // the head timeout does, as on imposter ports.
    const unbounded = setTimeout(() => socket.destroy(), this.outer.headersTimeout || HANDSHAKE_MS);
    const bounded = (): void => clearTimeout(unbounded);
    socket.once('close', bounded);
    const start = (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) this.terminateTls(socket, authority.hostname, bounded);
      else {
        bounded();
        this.serveCleartext(socket);
      }
    };
    if (head.length > 0) start(head);
    else socket.once('data', start);
  }

  private terminateTls(socket: Socket, connectHost: string, handshakeDone: () => void): void {
    const { ca } = this.deps;
    let secure: TLSSocket;
    try {
      secure = new TLSSocket(socket, {
        isServer: true,
        // Clients send no SNI for an IP address: the CONNECT host names the leaf then.
        secureContext: ca.contextFor(connectHost),
        SNICallback: (servername, callback) => {
          try {
            callback(null, ca.contextFor(servername));
          } catch (err) {
            callback(err as Error);
          }
        },
        ALPNProtocols: ['http/1.1'],
      });
    } catch (err) {
      this.deps.log.warn(`intercept: cannot present a certificate for ${connectHost}: ${errorText(err)}`);
      socket.destroy();
      return;
    }
    secure.on('error', () => secure.destroy());
    secure.once('secure', handshakeDone);
    this.tunnels.set(secure, this.tunnels.get(socket)!);
    secure.once('close', () => this.tunnels.delete(secure));
    this.inner.emit('connection', secure);
  }

  private serveCleartext(socket: Socket): void {
    this.tunnels.get(socket)!.protocol = 'http';
    this.inner.emit('connection', socket);
    socket.resume();
  }

  private onTunnelRequest(request: IncomingMessage, response: ServerResponse): void {
    const target = this.tunnels.get(request.socket);
    if (!target) {
      sendError(response, 'bad_gateway', 'tunnel closed');
      return;
    }
    this.dispatch(request, response, target, request.url ?? '/');
  }

  private dispatch(request: IncomingMessage, response: ServerResponse, target: Target, path: string): void {
    // A client that goes away mid-request ends the exchange, never the process.
    request.on('error', () => response.destroy());
    const query = path.indexOf('?');
    const rule = this.deps.rules.find({
      host: target.hostname.toLowerCase(),
      method: request.method ?? 'GET',
      path: query < 0 ? path : path.slice(0, query),
      headers: request.headers,
    });
    if (rule?.serve) {
      this.serve(request, response, rule);
      return;
    }
    if (rule?.inject !== undefined) {
      void this.inject(request, response, rule.inject, target, path);
      return;
    }
    if (rule?.forward) {
      const { port } = rule.forward;
      const protocol = rule.forward.protocol ?? this.deps.protocolOf?.(port) ?? 'http';
      // The imposter sees the host the client addressed.
      this.relay(request, response, { protocol, hostname: '127.0.0.1', port, authority: target.authority }, path);
      return;
    }
    if (isLoopback(target.hostname) && target.port === this.boundPort) {
      sendError(response, 'loop_detected', 'the request is addressed to the intercept proxy itself');
      return;
    }
    this.relay(request, response, target, path);
  }

  private serve(request: IncomingMessage, response: ServerResponse, rule: InterceptRule): void {
    const { statusCode, headers, body } = rule.serve!;
    request.resume();
    response.writeHead(statusCode, { ...headers, 'Content-Length': Buffer.byteLength(body) });
    response.end(body);
  }

  private async inject(request: IncomingMessage, response: ServerResponse, source: string, target: Target, path: string): Promise<void> {
    try {
      const answer = await runInjectRule(this.deps.scripts(), this.boundPort, source, request, target.hostname.toLowerCase(), path);
      if (response.destroyed) return;
      response.statusCode = answer.statusCode;
      for (const [name, value] of answer.headers) response.appendHeader(name, value);
      response.setHeader('Content-Length', answer.body.length);
      response.end(answer.body);
    } catch (err) {
      // An answer node refuses to write (an illegal header from the script) is the server's 500.
      response.removeHeader('Content-Type');
      sendError(response, 'internal_error', errorText(err));
    }
  }

  /** Sends the request on to `target` and streams the answer back; an unreachable origin is a 502. */
  private relay(request: IncomingMessage, response: ServerResponse, target: Target, path: string): void {
    const send = target.protocol === 'https' ? httpsRequest : httpRequest;
    const headers = relayedHeaders(request.headers);
    if (target.authority !== undefined) headers.host = target.authority;
    const upstream = send(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path,
        headers,
        agent: target.protocol === 'https' ? this.httpsAgent : this.httpAgent,
        // Origins behind a mock proxy are test servers with their own certificates (as mountebank's proxy).
        rejectUnauthorized: false,
        servername: /^[\d.]+$|:/.test(target.hostname) ? undefined : target.hostname,
      },
      (answer) => {
        answer.on('error', () => response.destroy());
        try {
          response.writeHead(answer.statusCode ?? 502, relayedHeaders(answer.headers));
        } catch (err) {
          // An answer node:http will not write (a status below 100, which its client parser accepts): the
          // origin's fault, this request's 502; thrown here, from the client's 'response' listener, it
          // would be uncaught.
          for (const name of response.getHeaderNames()) response.removeHeader(name);
          sendError(response, 'bad_gateway', `${target.protocol}://${target.hostname}:${target.port} answered what cannot be relayed: ${errorText(err)}`);
          answer.resume();
          return;
        }
        answer.pipe(response);
      },
    );
    upstream.on('error', (err) => sendError(response, 'bad_gateway', `cannot reach ${target.protocol}://${target.hostname}:${target.port}: ${err.message}`));
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  }
}

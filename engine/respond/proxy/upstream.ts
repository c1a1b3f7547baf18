/**
 * Forwarding one request to the proxy's origin (mountebank's httpProxy): keep-alive agents, one per
 * origin, reused across requests; TLS certificates are not verified (mountebank turns verification
 * off); the answer becomes a response object whose body is parsed JSON when it parses, base64 with
 * `_mode: binary` when it is binary.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isUtf8 } from 'node:buffer';
import { SvcFailure, type HeaderMap } from '../../model/index.js';
import type { ResponseFields } from '../behaviors/index.js';
import { permissiveCiphers } from '../../transport/index.js';

/** Upstream failures answer 500 `invalid proxy`, as in mountebank. */
export class ProxyError extends SvcFailure {
  readonly type = 'invalid_proxy';
}

export interface UpstreamTarget {
  /** `to` as configured (error messages quote it). */
  to: string;
  url: URL;
  agent: HttpAgent;
  /** Client certificate and TLS settings for the origin (mountebank's proxy cert/key/passphrase/ciphers/secureProtocol). */
  tls: Record<string, string>;
}

const agents = new Map<string, HttpAgent>();

function agentFor(url: URL): HttpAgent {
  const origin = `${url.protocol}//${url.host}`;
  let agent = agents.get(origin);
  if (!agent) {
    agent = url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, rejectUnauthorized: false }) : new HttpAgent({ keepAlive: true });
    agents.set(origin, agent);
  }
  return agent;
}

export function upstreamTarget(to: string, proxy: Record<string, unknown>): UpstreamTarget {
  const url = new URL(to);
  const tls: Record<string, string> = {};
  for (const key of ['cert', 'key', 'passphrase', 'ciphers', 'secureProtocol']) {
    if (typeof proxy[key] === 'string') tls[key] = proxy[key] as string;
  }
  // The client certificate the user gives is presented even when weak (Node 24's OpenSSL refuses it by default).
  if (url.protocol === 'https:') tls.ciphers = permissiveCiphers(tls.ciphers);
  return { to, url, agent: agentFor(url), tls };
}

const BINARY_ENCODINGS = ['gzip', 'br', 'compress', 'deflate'];
const BINARY_TYPES = [
  'audio/',
  'application/epub+zip',
  'application/gzip',
  'application/java-archive',
  'application/msword',
  'application/octet-stream',
  'application/pdf',
  'application/rtf',
  'application/vnd.ms-excel',
  'application/vnd.ms-fontobject',
  'application/vnd.ms-powerpoint',
  'application/vnd.visio',
  'application/x-shockwave-flash',
  'application/x-tar',
  'application/zip',
  'font/',
  'image/',
  'model/',
  'video/',
];

/** mountebank's content-type/encoding rule, plus bodies that are not UTF-8 (which text mode would corrupt). */
function isBinary(response: IncomingMessage, body: Buffer): boolean {
  const encoding = String(response.headers['content-encoding'] ?? '');
  const type = String(response.headers['content-type'] ?? '');
  if (BINARY_ENCODINGS.some((name) => encoding.includes(name))) return true;
  if (BINARY_TYPES.some((name) => type.includes(name))) return true;
  return !isUtf8(body);
}

function maybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Response headers keyed as received (case kept, a repeated name collects its values in order). */
function headersOf(rawHeaders: string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const [name, value] = [rawHeaders[i], rawHeaders[i + 1]];
    const current = headers[name];
    headers[name] = current === undefined ? value : Array.isArray(current) ? [...current, value] : [current, value];
  }
  return headers;
}

function outgoingHeaders(headers: HeaderMap, target: UpstreamTarget, hostInjected: boolean, body: Buffer): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  let framed = false;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    // The client's own Connection header goes along, as in mountebank: the origin's answer (served
    // and recorded) then says what it would have said to the client; keep-alive clients keep the pool warm.
    if (name.startsWith(':')) continue;
    if (lower === 'content-length' || lower === 'transfer-encoding') framed = true;
    // The origin's Host replaces the client's where it stood, as mountebank's proxy does.
    if (lower === 'host' && !hostInjected) out.host = target.url.host;
    else out[name] = value;
  }
  if (!hostInjected && out.host === undefined) out.host = target.url.host;
  if (body.length > 0 && !framed) out['Content-Length'] = body.length;
  return out;
}

function translate(error: NodeJS.ErrnoException, to: string): Error {
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return new ProxyError(`Cannot resolve ${JSON.stringify(to)}`);
  if (error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET') return new ProxyError(`Unable to connect to ${JSON.stringify(to)}`);
  return error;
}

function exchange(
  target: UpstreamTarget,
  method: string,
  path: string,
  headers: OutgoingHttpHeaders,
  body: Buffer,
): Promise<{ response: IncomingMessage; body: Buffer }> {
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send({
      method,
      // WHATWG keeps IPv6 literals bracketed; node:http wants the bare address.
      hostname: target.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: target.url.port || (target.url.protocol === 'https:' ? 443 : 80),
      path,
      headers,
      agent: target.agent,
      rejectUnauthorized: false,
      ...target.tls,
    });
    // `on`, not `once`: a socket can fail again after the first error, and an unheard 'error' would end the process.
    req.on('error', (error: NodeJS.ErrnoException) => {
      (error as { reused?: boolean }).reused = req.reusedSocket;
      reject(error);
    });
    req.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.once('end', () => resolve({ response, body: Buffer.concat(chunks) }));
    });
    req.end(body);
  });
}

/**
 * Sends the request upstream and shapes the answer as mountebank records it:
 * `{statusCode, headers, body, _mode}`. A pooled connection the origin closed meanwhile is retried
 * once on a fresh one.
 */
export async function forward(
  target: UpstreamTarget,
  method: string,
  path: string,
  headers: HeaderMap,
  body: Buffer,
  hostInjected: boolean,
): Promise<ResponseFields> {
  const outgoing = outgoingHeaders(headers, target, hostInjected, body);
  let result: { response: IncomingMessage; body: Buffer };
  try {
    result = await exchange(target, method, path, outgoing, body);
  } catch (error) {
    const err = error as NodeJS.ErrnoException & { reused?: boolean };
    if (!(err.reused && err.code === 'ECONNRESET')) throw translate(err, target.to);
    try {
      result = await exchange(target, method, path, outgoing, body);
    } catch (retryError) {
      throw translate(retryError as NodeJS.ErrnoException, target.to);
    }
  }
  const binary = isBinary(result.response, result.body);
  return {
    statusCode: result.response.statusCode,
    headers: headersOf(result.response.rawHeaders),
    body: maybeJson(result.body.toString(binary ? 'base64' : 'utf8')),
    _mode: binary ? 'binary' : 'text',
  };
}

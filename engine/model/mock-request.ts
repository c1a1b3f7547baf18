import { parse as parseQueryString } from 'node:querystring';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import type { HeaderMap, MockRequest, QueryMap, WireRequest } from './request.js';

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** mountebank keeps the first spelling of a header name and collects repeated values into an array. */
export function headerMapOf(rawHeaders: string[]): HeaderMap {
  const map: HeaderMap = {};
  const nameByLower = new Map<string, string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    const value = rawHeaders[i + 1];
    const lower = name.toLowerCase();
    const existing = nameByLower.get(lower);
    if (existing === undefined) {
      nameByLower.set(lower, name);
      map[name] = value;
    } else {
      // The array is this map's own: appending in place keeps many repeats of one name linear.
      const current = map[existing];
      if (Array.isArray(current)) current.push(value);
      else map[existing] = [current, value];
    }
  }
  return map;
}

function firstHeader(rawHeaders: string[], lowerName: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === lowerName) return rawHeaders[i + 1];
  }
  return undefined;
}

function decodeBody(body: Buffer, encoding: string | undefined): { text: string; binary: boolean } {
  let bytes = body;
  // mountebank decompresses gzip/br request bodies before matching; a body that fails to inflate is kept as sent.
  if (encoding === 'gzip' || encoding === 'br') {
    try {
      bytes = encoding === 'gzip' ? gunzipSync(body) : brotliDecompressSync(body);
    } catch {
      bytes = body;
    }
  }
  try {
    return { text: utf8Decoder.decode(bytes), binary: false };
  } catch {
    return { text: bytes.toString('utf8'), binary: true };
  }
}

function isUrlEncodedForm(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim() === 'application/x-www-form-urlencoded';
}

function clientName(address: string, port: number): string {
  return `${address}:${port}`;
}

/**
 * mountebank's simplified http request, built lazily: a stub set that never looks at headers,
 * query or body (catch-alls, method/path literals) costs no parsing for them on the hot path.
 */
class LazyMockRequest implements MockRequest {
  readonly method: string;
  readonly path: string;
  readonly rawBody: Buffer;
  readonly ip: string;
  private readonly wire: WireRequest;
  private readonly search: string;
  private queryCache: QueryMap | undefined;
  private headersCache: HeaderMap | undefined;
  private decoded: { text: string; binary: boolean } | undefined;
  private formCache: QueryMap | null | undefined;

  constructor(wire: WireRequest) {
    this.wire = wire;
    const url = wire.url;
    const q = url.indexOf('?');
    this.method = wire.method;
    this.path = normalisePath(q === -1 ? url : url.slice(0, q));
    const search = q === -1 ? '' : url.slice(q + 1);
    const hash = search.indexOf('#');
    this.search = hash === -1 ? search : search.slice(0, hash);
    this.rawBody = wire.body;
    this.ip = wire.remoteAddress;
  }

  get requestFrom(): string {
    return clientName(this.wire.remoteAddress, this.wire.remotePort);
  }

  get query(): QueryMap {
    if (this.queryCache === undefined) {
      this.queryCache = this.search === '' ? {} : { ...(parseQueryString(this.search) as QueryMap) };
    }
    return this.queryCache;
  }

  get headers(): HeaderMap {
    if (this.headersCache === undefined) this.headersCache = headerMapOf(this.wire.rawHeaders);
    return this.headersCache;
  }

  private get decodedBody(): { text: string; binary: boolean } {
    if (this.decoded === undefined) {
      this.decoded = this.rawBody.length === 0 ? { text: '', binary: false } : decodeBody(this.rawBody, firstHeader(this.wire.rawHeaders, 'content-encoding'));
    }
    return this.decoded;
  }

  get body(): string {
    return this.decodedBody.text;
  }

  get isBinary(): boolean {
    return this.decodedBody.binary;
  }

  get form(): QueryMap | undefined {
    if (this.formCache === undefined) {
      const text = this.body;
      this.formCache = text !== '' && isUrlEncodedForm(firstHeader(this.wire.rawHeaders, 'content-type')) ? { ...(parseQueryString(text) as QueryMap) } : null;
    }
    return this.formCache ?? undefined;
  }
}

/** Shapes a wire request like mountebank's simplified http request (fields parsed on first use). */
export function toMockRequest(wire: WireRequest): MockRequest {
  return new LazyMockRequest(wire);
}

const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-_~!$&'()*+,;=:@%/.]*$/;

/** Same as mountebank's `new URL(target, 'http://localhost').pathname`, with a fast path for plain paths. */
function normalisePath(rawPath: string): string {
  if (PLAIN_PATH.test(rawPath) && !rawPath.includes('/.')) return rawPath;
  try {
    return new URL(rawPath, 'http://localhost').pathname;
  } catch {
    return rawPath;
  }
}

/**
 * The request as a plain JSON object in mountebank's key order (what scripts, shellTransform and
 * proxies see). Use this rather than spreading or cloning a MockRequest: its fields are lazy getters.
 */
export function plainRequest(request: MockRequest): Record<string, unknown> {
  const plain: Record<string, unknown> = {
    requestFrom: request.requestFrom,
    method: request.method,
    path: request.path,
    query: request.query,
    headers: request.headers,
    body: request.body,
    ip: request.ip,
  };
  const form = request.form;
  if (form !== undefined) plain.form = form;
  return plain;
}

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
      const current = map[existing];
      map[existing] = Array.isArray(current) ? [...current, value] : [current, value];
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

/** Shapes a wire request like mountebank's simplified http request. */
export function toMockRequest(wire: WireRequest): MockRequest {
  const url = wire.url;
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const search = q === -1 ? '' : url.slice(q + 1);
  const hash = search.indexOf('#');
  const query = (search === '' ? {} : parseQueryString(hash === -1 ? search : search.slice(0, hash))) as QueryMap;
  const { text, binary } = wire.body.length === 0 ? { text: '', binary: false } : decodeBody(wire.body, firstHeader(wire.rawHeaders, 'content-encoding'));
  const request: MockRequest = {
    requestFrom: clientName(wire.remoteAddress, wire.remotePort),
    method: wire.method,
    path: normalisePath(rawPath),
    query: { ...query },
    headers: headerMapOf(wire.rawHeaders),
    body: text,
    rawBody: wire.body,
    ip: wire.remoteAddress,
    isBinary: binary,
  };
  if (text !== '' && isUrlEncodedForm(firstHeader(wire.rawHeaders, 'content-type'))) {
    request.form = { ...(parseQueryString(text) as QueryMap) };
  }
  return request;
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

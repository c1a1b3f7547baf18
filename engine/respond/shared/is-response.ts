import type { OutgoingHeaders } from '../../transport/index.js';
import { type HeaderMap, isObject } from '../../model/index.js';

/** A response ready for the wire; built once per stub response when it is static. */
export interface PreparedResponse {
  statusCode: number;
  headers: OutgoingHeaders;
  body: Buffer;
}

export interface IsFields {
  statusCode?: unknown;
  headers?: unknown;
  body?: unknown;
  _mode?: unknown;
}

function bodyText(body: unknown): string {
  if (typeof body === 'object' && body !== null) return JSON.stringify(body, null, 4);
  return String(body);
}

function headerList(headers: Record<string, unknown>): OutgoingHeaders {
  const list: OutgoingHeaders = [];
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const v of value) list.push([name, String(v)]);
    else if (value !== undefined && value !== null) list.push([name, String(value)]);
  }
  return list;
}

function hasHeader(list: OutgoingHeaders, lowerName: string): boolean {
  return list.some(([name]) => name.toLowerCase() === lowerName);
}

/**
 * mountebank's post-processing of an `is` response: fields fall back to the imposter's
 * defaultResponse (a falsy field falls back, exactly like mountebank), object bodies are
 * pretty-printed JSON, binary bodies are base64, `Connection: close` is added when absent and a
 * given Content-Length is recomputed.
 */
export function prepareResponse(is: IsFields, defaults: IsFields | undefined): PreparedResponse {
  const fallback = defaults ?? {};
  const statusCode = Number(is.statusCode || fallback.statusCode || 200);
  const headerSource = (is.headers || fallback.headers || {}) as Record<string, unknown>;
  const rawBody = is.body || fallback.body || '';
  const mode = is._mode || fallback._mode || 'text';
  const text = bodyText(rawBody);
  const body = mode === 'binary' ? Buffer.from(text.replace(/[^A-Za-z0-9=+/]+/g, ''), 'base64') : Buffer.from(text, 'utf8');
  const headers = headerList(headerSource);
  if (!hasHeader(headers, 'connection')) headers.push(['Connection', 'close']);
  for (const header of headers) {
    if (header[0].toLowerCase() === 'content-length') header[1] = String(body.length);
  }
  return { statusCode, headers, body };
}

function firstValue(headers: HeaderMap, lowerName: string): string | undefined {
  for (const name in headers) {
    if (name.toLowerCase() === lowerName) {
      const value = headers[name];
      return Array.isArray(value) ? value[0] : value;
    }
  }
  return undefined;
}

function setHeader(list: OutgoingHeaders, name: string, value: string): void {
  const lower = name.toLowerCase();
  const kept = list.filter(([n]) => n.toLowerCase() !== lower);
  const existing = list.find(([n]) => n.toLowerCase() === lower);
  kept.push([existing ? existing[0] : name, value]);
  list.splice(0, list.length, ...kept);
}

/** With `allowCORS`, a preflight gets the Allow-* headers mirrored from the request (mountebank). */
export function withCorsPreflight(response: PreparedResponse, method: string, requestHeaders: HeaderMap): PreparedResponse {
  if (method !== 'OPTIONS') return response;
  const requestedHeaders = firstValue(requestHeaders, 'access-control-request-headers');
  const requestedMethod = firstValue(requestHeaders, 'access-control-request-method');
  const origin = firstValue(requestHeaders, 'origin');
  if (!requestedHeaders || !requestedMethod || !origin) return response;
  const headers: OutgoingHeaders = response.headers.map(([n, v]) => [n, v]);
  setHeader(headers, 'Access-Control-Allow-Headers', requestedHeaders);
  setHeader(headers, 'Access-Control-Allow-Methods', requestedMethod);
  setHeader(headers, 'Access-Control-Allow-Origin', origin);
  return { ...response, headers };
}

export function isStaticIs(value: unknown): value is IsFields {
  return isObject(value);
}

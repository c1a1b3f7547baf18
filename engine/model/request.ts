/** Header values as mountebank exposes them: a name sent several times becomes an array. */
export type HeaderValue = string | string[];
/** Original-case header names (first spelling seen wins), one entry per name. */
export type HeaderMap = Record<string, HeaderValue>;
export type QueryMap = Record<string, string | string[]>;

/** One request as received from the wire, before any mountebank shaping. */
export interface WireRequest {
  method: string;
  /** Request target exactly as sent (path plus optional query). */
  url: string;
  httpVersion: '1.0' | '1.1' | '2.0';
  /** Alternating name, value as received (original case, every value kept). */
  rawHeaders: string[];
  body: Buffer;
  remoteAddress: string;
  remotePort: number;
}

/** The request shape predicates, journal and scripts work on (mountebank's simplified request). */
export interface MockRequest {
  requestFrom: string;
  method: string;
  /** Bare path, no query string. */
  path: string;
  query: QueryMap;
  headers: HeaderMap;
  /** Body decoded as UTF-8 ('' when the request had none). */
  body: string;
  /** Body bytes exactly as received. */
  rawBody: Buffer;
  /** Parsed `application/x-www-form-urlencoded` body, like mountebank. */
  form?: QueryMap;
  ip: string;
  /** True when the body is not valid UTF-8. */
  isBinary: boolean;
}

/**
 * A client that calls the admin API and imposters the way mountebank's own functional tests do: a
 * keep-alive agent per protocol, host `localhost`, `Accept: application/json` unless given, a JSON
 * `Content-Type` whenever there is a body, certificates never verified, and a response body parsed
 * as JSON when the answer says it is JSON. Differences that only show up under these conditions
 * (keep-alive reuse, Host-derived links) are what the conformance tests look for.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { WEAK_KEY_CLIENT } from '../raw-http.js';
import { freePort, type RunningServer } from '../servers.js';

export interface MbResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON for JSON answers, else the text (or the bytes with `binary`). */
  body: any;
}

export interface RequestSpec {
  method: string;
  port: number;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Send `body` as bytes and return the body as a Buffer. */
  binary?: boolean;
  /** Per-request TLS client identity (then no shared agent, as mountebank's test does). */
  key?: string;
  cert?: string;
}

export interface MbClient {
  request(spec: RequestSpec): Promise<MbResponse>;
  get(path: string, port: number): Promise<MbResponse>;
  post(path: string, body: unknown, port: number): Promise<MbResponse>;
  close(): void;
}

export function mbClient(protocol: 'http' | 'https'): MbClient {
  const driver = protocol === 'http' ? http : https;
  const agent = protocol === 'http' ? new http.Agent({ keepAlive: true }) : new https.Agent({ keepAlive: true, rejectUnauthorized: false });
  const request = (spec: RequestSpec) =>
    new Promise<MbResponse>((resolve, reject) => {
      const headers: Record<string, string> = { ...spec.headers };
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'accept')) headers.accept = 'application/json';
      if (spec.body !== undefined && spec.body !== '' && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
        headers['Content-Type'] = 'application/json';
      }
      const ownIdentity = spec.key !== undefined;
      const req = driver.request(
        {
          hostname: 'localhost',
          port: spec.port,
          path: spec.path,
          method: spec.method,
          headers,
          rejectUnauthorized: false,
          agent: ownIdentity ? false : agent,
          ...(ownIdentity ? { key: spec.key, cert: spec.cert, ...WEAK_KEY_CLIENT } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            let body: unknown = spec.binary ? bytes : bytes.toString('utf8');
            if ((res.headers['content-type'] ?? '').startsWith('application/json')) {
              try {
                body = JSON.parse(bytes.toString('utf8'));
              } catch {
                body = `unparseable JSON: ${bytes.toString('utf8')}`;
              }
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          });
        },
      );
      req.setTimeout(30_000, () => req.destroy(new Error(`${spec.method} ${spec.path} on ${spec.port} timed out`)));
      req.on('error', reject);
      if (spec.body !== undefined) {
        req.end(Buffer.isBuffer(spec.body) || typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body));
      } else {
        req.end();
      }
    });
  return {
    request,
    get: (path, port) => request({ method: 'GET', path, port }),
    post: (path, body, port) => request({ method: 'POST', path, port, body }),
    close: () => agent.destroy(),
  };
}

/** The admin API of one server through a mountebank-style client; absolute URLs (Location) accepted. */
export interface MbApi {
  port: number;
  /** `http://localhost:<port>`, the base mountebank's tests expect in links. */
  url: string;
  get(path: string): Promise<MbResponse>;
  post(path: string, body: unknown): Promise<MbResponse>;
  put(path: string, body: unknown): Promise<MbResponse>;
  del(path: string): Promise<MbResponse>;
}

export function mbApi(server: RunningServer, client: MbClient): MbApi {
  const port = server.adminPort;
  const pathOf = (target: string) => (target.startsWith('http') ? new URL(target).pathname + new URL(target).search : target);
  const call = (method: string, target: string, body?: unknown) => client.request({ method, port, path: pathOf(target), body });
  return {
    port,
    url: `http://localhost:${port}`,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
    del: (path) => call('DELETE', path),
  };
}

/** `count` distinct free ports, ascending (so both sides number them alike). */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  return ports.sort((a, b) => a - b);
}

/** Resolves with the error code of a request expected to fail (or 'answered'). */
export async function failureCode(attempt: Promise<unknown>): Promise<string> {
  try {
    await attempt;
    return 'answered';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  }
}

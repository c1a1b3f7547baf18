/**
 * The transports the shared request→response cases run over: one svc process (spawned, so the runtime
 * it picks is the one under test) with a front door, reached eight ways. Each transport creates the
 * case's imposter through the admin API, sends the case's requests its own way (each on a fresh
 * connection), and deletes it again.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import http2 from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, http, startSvc, type RunningServer } from '../servers.js';
import { makePki, type Pki } from '../raw-http.js';

/**
 * What a transport legitimately does differently; cases name these in data (`differs`). `h2`: the
 * client speaks HTTP/2 to whatever it dials; `direct`: it dials the imposter's own port.
 */
export type Trait = 'h2' | 'tls' | 'direct' | 'gateway' | 'frontDoor';

export interface CaseRequest {
  method: string;
  path: string;
  /** Appended as a query string; an array repeats the key. */
  query?: Record<string, string | string[]>;
  /** An array sends the header once per value. */
  headers?: Record<string, string | string[]>;
  body?: string;
}

export interface CaseResponse {
  status: number;
  /** Name (lowercased) and value pairs as received, repeats kept. */
  headers: Array<[string, string]>;
  body: Buffer;
}

export interface RunningImposter {
  send(request: CaseRequest): Promise<CaseResponse>;
  stop(): Promise<void>;
}

export interface Transport {
  name: string;
  traits: ReadonlySet<Trait>;
  /** Creates the imposter (`protocol`, `port` and TLS material are the transport's) and returns how to reach it. */
  start(imposter: Record<string, unknown>): Promise<RunningImposter>;
}

/** A hang detector, not a timing bound: a cold script worker on a machine at load 30 takes seconds. */
const TIMEOUT_MS = 120_000;

function targetOf(request: CaseRequest, prefix = ''): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) params.append(key, one);
  }
  const query = params.toString();
  return `${prefix}${request.path}${query === '' ? '' : `?${query}`}`;
}

function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i].toLowerCase(), raw[i + 1]]);
  return out;
}

interface Http1Target {
  port: number;
  tls: boolean;
  prefix?: string;
  host?: string;
}

/** One request on a fresh connection (agent: false); over TLS it offers only http/1.1 in ALPN. */
function sendHttp1(target: Http1Target, request: CaseRequest): Promise<CaseResponse> {
  const headers: Record<string, string | string[]> = { ...request.headers };
  if (target.host !== undefined) headers.Host = target.host;
  const options = {
    host: '127.0.0.1',
    port: target.port,
    method: request.method,
    path: targetOf(request, target.prefix),
    headers,
    agent: false as const,
    ...(target.tls ? { rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = (target.tls ? httpsRequest : httpRequest)(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: pairs(res.rawHeaders), body: Buffer.concat(chunks) }));
    });
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`${request.method} ${request.path} timed out`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

/**
 * One request on its own HTTP/2 session: h2c with prior knowledge, or TLS where ALPN picks h2. A stream
 * or session that ends without the response's end (a reset, a fault) rejects.
 */
function sendHttp2(url: string, request: CaseRequest, options: { prefix?: string; authority?: string } = {}): Promise<CaseResponse> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url, { rejectUnauthorized: false });
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      session.destroy();
      reject(err);
    };
    session.on('error', fail);
    session.on('close', () => fail(new Error('HTTP/2 session closed before the response ended')));
    const headers: http2.OutgoingHttpHeaders = { ':method': request.method, ':path': targetOf(request, options.prefix) };
    if (options.authority !== undefined) headers[':authority'] = options.authority;
    for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
    const stream = session.request(headers, { endStream: false });
    const chunks: Buffer[] = [];
    let status = 0;
    let raw: string[] = [];
    stream.setTimeout(TIMEOUT_MS, () => fail(new Error(`${request.method} ${request.path} timed out`)));
    stream.on('response', (head: IncomingHttpHeaders & http2.IncomingHttpStatusHeader, _flags: number, rawHeaders: string[]) => {
      status = Number(head[':status']);
      raw = rawHeaders;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', fail);
    stream.on('close', () => fail(new Error(`HTTP/2 stream closed (code ${stream.rstCode}) before the response ended`)));
    stream.on('end', () => {
      if (status === 0) {
        fail(new Error('HTTP/2 stream ended without response headers'));
        return;
      }
      if (settled) return;
      settled = true;
      session.close();
      resolve({ status, headers: pairs(raw).filter(([name]) => !name.startsWith(':')), body: Buffer.concat(chunks) });
    });
    stream.end(request.body);
  });
}

/** The svc process every transport reaches, with a front door whose one route targets `frontDoorTarget`. */
export interface CaseServer {
  admin: string;
  adminPort: number;
  frontDoorPort: number;
  /** The port the front door's route sends `cases.front` to; the front-door transport creates its imposter there. */
  frontDoorTarget: number;
  pki: Pki;
  server: RunningServer;
}

export const FRONT_DOOR_HOST = 'cases.front';

/** SVC_RUNTIME=per-core runs the same cases on the per-core runtime. */
function runtimeArgs(): string[] {
  const runtime = process.env.SVC_RUNTIME;
  return runtime === undefined || runtime === '' ? [] : ['--runtime', runtime];
}

export async function startCaseServer(dir: string): Promise<CaseServer> {
  const [frontDoorPort, frontDoorTarget] = [await freePort(), await freePort()];
  const config = join(dir, 'cases.json');
  writeFileSync(
    config,
    JSON.stringify({
      imposters: [],
      routes: [{ id: 'cases', match: { host: FRONT_DOOR_HOST }, target: { port: frontDoorTarget } }],
    }),
  );
  const server = await startSvc({
    args: [
      '--allowInjection',
      '--configfile',
      config,
      '--front-door',
      `127.0.0.1:${frontDoorPort}`,
      '--metrics-port',
      String(await freePort()),
      '--pidfile',
      join(dir, 'svc.pid'),
      ...runtimeArgs(),
    ],
  });
  return { admin: `http://127.0.0.1:${server.adminPort}`, adminPort: server.adminPort, frontDoorPort, frontDoorTarget, pki: makePki(), server };
}

async function createImposter(svc: CaseServer, imposter: Record<string, unknown>): Promise<number> {
  const res = await http('POST', `${svc.admin}/imposters`, { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(imposter) });
  if (res.status !== 201) throw new Error(`creating the case imposter: ${res.status} ${res.body}`);
  return JSON.parse(res.body).port as number;
}

async function deleteImposter(svc: CaseServer, port: number): Promise<void> {
  const res = await http('DELETE', `${svc.admin}/imposters/${port}`);
  if (res.status !== 200) throw new Error(`deleting the case imposter ${port}: ${res.status} ${res.body}`);
}

type Reach = (svc: CaseServer, port: number, request: CaseRequest) => Promise<CaseResponse>;

function transport(
  server: () => CaseServer,
  name: string,
  traits: Trait[],
  options: { tls?: boolean; port?: (svc: CaseServer) => number },
  reach: Reach,
): Transport {
  return {
    name,
    traits: new Set(traits),
    async start(imposter) {
      const svc = server();
      const tls = options.tls === true ? { protocol: 'https', key: svc.pki.serverKey, cert: svc.pki.serverCert } : { protocol: 'http' };
      const port = await createImposter(svc, { ...imposter, ...tls, port: options.port?.(svc) ?? (await freePort()) });
      return { send: (request) => reach(svc, port, request), stop: () => deleteImposter(svc, port) };
    },
  };
}

/** HTTP/1.1, h2c, HTTPS/1.1, h2 over TLS, the admin gateway and the front door (each also over h2c), over the svc `server()` returns once started. */
export function transportsOf(server: () => CaseServer): Transport[] {
  return [
    transport(server, 'HTTP/1.1', ['direct'], {}, (_svc, port, request) => sendHttp1({ port, tls: false }, request)),
    transport(server, 'h2c (prior knowledge)', ['direct', 'h2'], {}, (_svc, port, request) => sendHttp2(`http://127.0.0.1:${port}`, request)),
    transport(server, 'HTTPS/1.1', ['direct', 'tls'], { tls: true }, (_svc, port, request) => sendHttp1({ port, tls: true }, request)),
    transport(server, 'h2 over TLS (ALPN)', ['direct', 'h2', 'tls'], { tls: true }, (_svc, port, request) => sendHttp2(`https://127.0.0.1:${port}`, request)),
    transport(server, 'admin gateway', ['gateway'], {}, (svc, port, request) =>
      sendHttp1({ port: svc.adminPort, tls: false, prefix: `/__svc/${port}` }, request),
    ),
    transport(server, 'admin gateway over h2c', ['gateway', 'h2'], {}, (svc, port, request) =>
      sendHttp2(`http://127.0.0.1:${svc.adminPort}`, request, { prefix: `/__svc/${port}` }),
    ),
    transport(server, 'front door', ['frontDoor'], { port: (svc) => svc.frontDoorTarget }, (svc, _port, request) =>
      sendHttp1({ port: svc.frontDoorPort, tls: false, host: FRONT_DOOR_HOST }, request),
    ),
    transport(server, 'front door over h2c', ['frontDoor', 'h2'], { port: (svc) => svc.frontDoorTarget }, (svc, _port, request) =>
      sendHttp2(`http://127.0.0.1:${svc.frontDoorPort}`, request, { authority: FRONT_DOOR_HOST }),
    ),
  ];
}

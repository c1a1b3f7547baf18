/**
 * Shared harness of the dynamic-response conformance files (behaviors, inject, proxy, faults):
 * mountebank 2.9.1 and svc, both with --allowInjection, get the same imposters on ports of their
 * own; requests go over http or https the way mountebank's functional tests send them (an
 * `accept: application/json` header, a JSON content type whenever there is a body).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isUtf8 } from 'node:buffer';
import { freePort, http, type RunningServer } from '../servers.js';
import type { Test } from 'uvu';
import { ignoredHeaders, startPair } from './pair.js';
import { suiteResource } from '../suite-resource.js';

export type Protocol = 'http' | 'https';

export interface Side {
  name: 'mountebank' | 'svc';
  server: RunningServer;
  admin: string;
}

export interface DynamicPair {
  sides: [Side, Side];
  stop(): Promise<void>;
}

export async function startDynamicPair(): Promise<DynamicPair> {
  const pair = await startPair(['--allowInjection']);
  const side = (name: Side['name'], server: RunningServer): Side => ({ name, server, admin: `http://127.0.0.1:${server.adminPort}` });
  return {
    sides: [side('mountebank', pair.mb.server), side('svc', pair.svc.server)],
    async stop() {
      closeAgents();
      await pair.stop();
    },
  };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
  bodyBytes: Buffer;
  /** The parsed body when the content type is JSON (mountebank's test client does the same). */
  json?: any;
}

export interface Call {
  protocol?: Protocol;
  port: number;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
}

/** Keep-alive agents, as mountebank's test client has: a connection an imposter leaves open is reused. */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true, rejectUnauthorized: false }) };

/** Closes the pooled connections; each file calls it when it is done (uvu runs every file in one process). */
export function closeAgents(): void {
  agents.http.destroy();
  agents.https.destroy();
}

/** One request through the keep-alive agent; rejects with the socket error (its `code`) when there is no answer. */
export function call(spec: Call): Promise<Answer> {
  const headers: Record<string, string> = { ...spec.headers };
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'accept')) headers.accept = 'application/json';
  if (spec.body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  const send = spec.protocol === 'https' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        host: 'localhost',
        port: spec.port,
        method: spec.method ?? 'GET',
        path: spec.path ?? '/',
        headers,
        agent: agents[spec.protocol ?? 'http'],
        rejectUnauthorized: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const bodyBytes = Buffer.concat(chunks);
          const body = bodyBytes.toString('utf8');
          const answer: Answer = { status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body, bodyBytes };
          if ((res.headers['content-type'] ?? '').startsWith('application/json')) {
            try {
              answer.json = JSON.parse(body);
            } catch {
              /* left as text */
            }
          }
          resolve(answer);
        });
      },
    );
    req.setTimeout(spec.timeoutMs ?? 60_000, () => req.destroy(new Error(`${spec.method ?? 'GET'} ${spec.path ?? '/'} timed out`)));
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** What a client sees of an answer; framing and time headers left out (see test/support/mountebank/pair.ts). */
export function view(answer: Answer): { status: number; headers: Record<string, string[]>; body: string } {
  const headers: Record<string, string[]> = {};
  for (let i = 0; i < answer.rawHeaders.length; i += 2) {
    const name = answer.rawHeaders[i]!.toLowerCase();
    if (!ignoredHeaders.has(name)) (headers[name] ??= []).push(answer.rawHeaders[i + 1]!);
  }
  const sorted = Object.fromEntries(Object.entries(headers).sort(([a], [b]) => a.localeCompare(b)));
  const body = isUtf8(answer.bodyBytes) ? answer.body : `base64:${answer.bodyBytes.toString('base64')}`;
  return { status: answer.status, headers: sorted, body };
}

/** Admin call with a JSON body; `json` holds the parsed answer. */
export async function admin(side: Side, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await http(method, `${side.admin}${path}`, {
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let json: any;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers as IncomingHttpHeaders, rawHeaders: res.rawHeaders, body: res.body, bodyBytes: res.bodyBytes, json };
}

/** `n` distinct free ports, ascending. */
export async function freePorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  return ports.sort((a, b) => a - b);
}

/**
 * Creates the imposters `build(ports)` returns on one side, in order, on fresh ports; throws unless
 * each is accepted with 201 (mountebank's `api.createImposter` asserts the same).
 */
export async function createImposters(side: Side, count: number, build: (ports: number[]) => object[]): Promise<number[]> {
  const ports = await freePorts(count);
  for (const imposter of build(ports)) {
    const res = await admin(side, 'POST', '/imposters', imposter);
    if (res.status !== 201) throw new Error(`${side.name} refused the imposter (${res.status}): ${res.body}`);
  }
  return ports;
}

/** Deletes every imposter on both sides; never throws (runs in after.each hooks). */
async function clearBoth(pair: DynamicPair): Promise<void> {
  await Promise.allSettled(pair.sides.map((side) => http('DELETE', `${side.admin}/imposters`)));
}

/** One pair for a whole suite, imposters cleared after each test (see suiteResource for a failed start). */
export function dynamicPairForSuite(test: Test): () => DynamicPair {
  return suiteResource(test, startDynamicPair, { stop: (pair) => pair.stop(), afterEach: clearBoth });
}

/** Milliseconds one call takes. */
export async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = Date.now();
  const value = await work();
  return [value, Date.now() - start];
}

/**
 * Creates the imposters on both sides, then runs `exercise` against each side (in parallel: the
 * sides share nothing) and returns what each observed, for the caller to compare.
 */
export async function onBoth<T>(
  pair: DynamicPair,
  count: number,
  build: (ports: number[]) => object[],
  exercise: (side: Side, ports: number[]) => Promise<T>,
): Promise<{ mb: T; svc: T }> {
  const [mb, svc] = await Promise.all(pair.sides.map(async (side) => exercise(side, await createImposters(side, count, build))));
  return { mb: mb!, svc: svc! };
}

/**
 * Issue 19 item 1: CPU of one `POST /imposters/{port}/stubs` (reply included) against an imposter
 * that already holds N stubs, for a curve of N. The server's CPU (all threads, /proc) over `edits`
 * sequential POSTs, divided by `edits`; each POST appends a distinct path stub, as a contract suite
 * adding a stub per test does.
 */
import { http, type RunningServer } from '../test/support/servers.js';
import { cpuTime } from './cpu.js';
import { addMapping, loadMappings } from './wiremock.js';

/** Stub counts of the curve and the targets (CPU ms per POST) where it sets one. */
export const EDIT_SIZES = [100, 1000, 3000, 10000];
export const EDIT_TARGETS: Record<number, number> = { 1000: 1, 10000: 5 };

function pathStub(n: number): Record<string, unknown> {
  return { predicates: [{ equals: { method: 'GET', path: `/edit/${n}` } }], responses: [{ is: { statusCode: 200, body: `edit ${n}` } }] };
}

async function admin(server: RunningServer, method: string, path: string, body: unknown): Promise<string> {
  const res = await http(method, `http://127.0.0.1:${server.adminPort}${path}`, {
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs: 300_000,
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`);
  return res.body;
}

/** CPU milliseconds per call of each kind. */
export interface EditCosts {
  /** POST .../stubs (appended). */
  post: number | undefined;
  /** PUT .../stubs/{middle index}. */
  put: number | undefined;
  /** DELETE .../stubs/{middle index}. */
  del: number | undefined;
}

/** Server CPU milliseconds per call of `call`, over `edits` calls. */
async function cpuMsPer(server: RunningServer, edits: number, call: (i: number) => Promise<unknown>): Promise<number | undefined> {
  const before = cpuTime(server.pid);
  for (let i = 0; i < edits; i++) await call(i);
  const after = cpuTime(server.pid);
  return before && after ? (1000 * (after.all - before.all)) / edits : undefined;
}

/**
 * CPU milliseconds per POST on a fresh imposter of `stubs` stubs, over `edits` POSTs after 3 warm-up
 * ones; then per PUT and per DELETE of the stub in the middle (`edits` each); the imposter is deleted after.
 */
export async function cpuMsPerPost(server: RunningServer, stubs: number, edits: number): Promise<EditCosts> {
  const created = JSON.parse(await admin(server, 'POST', '/imposters', { protocol: 'http', stubs: Array.from({ length: stubs }, (_, n) => pathStub(n)) })) as {
    port: number;
  };
  const at = `/imposters/${created.port}/stubs`;
  const middle = Math.floor(stubs / 2);
  try {
    for (let i = 0; i < 3; i++) await admin(server, 'POST', at, { stub: pathStub(stubs + i) });
    const post = await cpuMsPer(server, edits, (i) => admin(server, 'POST', at, { stub: pathStub(stubs + 3 + i) }));
    const put = await cpuMsPer(server, edits, (i) => admin(server, 'PUT', `${at}/${middle}`, pathStub(2 * stubs + i)));
    const del = await cpuMsPer(server, edits, () => admin(server, 'DELETE', `${at}/${middle}`, undefined));
    return { post, put, del };
  } finally {
    await http('DELETE', `http://127.0.0.1:${server.adminPort}/imposters/${created.port}`, { timeoutMs: 300_000 });
  }
}

function pathMapping(n: number): Record<string, unknown> {
  return { request: { method: 'GET', urlPath: `/edit/${n}` }, response: { status: 200, body: `edit ${n}` } };
}

/** The same for WireMock: `POST /__admin/mappings` of one mapping onto `stubs` mappings (its reply is that mapping). */
export async function wiremockMsPerPost(server: RunningServer, stubs: number, edits: number): Promise<number | undefined> {
  await loadMappings(
    server,
    Array.from({ length: stubs }, (_, n) => pathMapping(n)),
  );
  try {
    for (let i = 0; i < 3; i++) await addMapping(server, pathMapping(stubs + i));
    const before = cpuTime(server.pid);
    for (let i = 0; i < edits; i++) await addMapping(server, pathMapping(stubs + 3 + i));
    const after = cpuTime(server.pid);
    return before && after ? (1000 * (after.all - before.all)) / edits : undefined;
  } finally {
    await loadMappings(server, []);
  }
}

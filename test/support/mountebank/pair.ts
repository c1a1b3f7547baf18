/**
 * Differential testing: the same imposter JSON and requests go to mountebank 2.9.1 and to svc, and
 * the answers are reduced to the parts a mountebank client can observe before comparison.
 *
 * `DIFF_SVC=mb` puts a second mountebank on the svc side, which validates the harness itself.
 *
 * What is compared on imposter traffic: status, body bytes, and every response header except
 * `date` (time), `content-length` / `transfer-encoding` (framing: mountebank streams chunked, a
 * faster engine may send a length) and `keep-alive` (a timeout hint). Header names are compared
 * case-insensitively; the values of a repeated header are compared in order.
 *
 * Admin JSON: mountebank's document must be contained in svc's (svc may add SPEC extensions such
 * as `stubCount`), after `_links` hosts and imposter ports are replaced by placeholders (each side
 * listens on its own ports) and the values of `timestamp` / `requestFrom` / `ip` (per run) are masked.
 */
import { isUtf8 } from 'node:buffer';
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http, startMountebank, startSvc, type HttpOptions, type HttpResponse, type RunningServer } from '../servers.js';
import { suiteResource } from '../suite-resource.js';

/** DIFF_SVC=mb: the "svc" side is a second mountebank. */
export const svcIsMountebank = process.env.DIFF_SVC === 'mb';

/** DIFF_COMPAT=mountebank: svc runs with `--compat mountebank` and admin JSON must equal mountebank's exactly. */
export const svcCompat = process.env.DIFF_COMPAT === 'mountebank';

export interface Side {
  name: string;
  server: RunningServer;
  admin: string;
}

export interface Pair {
  mb: Side;
  svc: Side;
  stop(): Promise<void>;
}

/**
 * Starts mountebank and svc side by side, both with the same extra command-line `args`; `svcArgs`
 * go to svc only (such as `--compat mountebank`).
 */
export async function startPair(args: string[] = [], svcArgs: string[] = []): Promise<Pair> {
  const [mb, svc] = await Promise.allSettled([
    startMountebank({ args }),
    svcIsMountebank ? startMountebank({ args }) : startSvc({ args: [...args, ...(svcCompat ? ['--compat', 'mountebank'] : []), ...svcArgs] }),
  ]);
  if (mb.status === 'rejected' || svc.status === 'rejected') {
    if (mb.status === 'fulfilled') await mb.value.stop();
    if (svc.status === 'fulfilled') await svc.value.stop();
    throw mb.status === 'rejected' ? mb.reason : (svc as PromiseRejectedResult).reason;
  }
  const side = (name: string, server: RunningServer): Side => ({ name, server, admin: `http://127.0.0.1:${server.adminPort}` });
  const pair = {
    mb: side('mountebank', mb.value),
    svc: side(svcIsMountebank ? 'mountebank#2' : 'svc', svc.value),
    async stop() {
      await Promise.all([mb.value.stop(), svc.value.stop()]);
    },
  };
  if (args.includes('--allowInjection')) {
    try {
      await warmScriptSandbox(pair.svc);
    } catch (err) {
      await pair.stop();
      throw err;
    }
  }
  return pair;
}

/**
 * One inject run before the tests, so a sandbox worker's cold start (seconds on a loaded machine)
 * is not charged to the first test's script deadline.
 */
async function warmScriptSandbox(side: Side): Promise<void> {
  const port = await freePort();
  const created = await http('POST', `${side.admin}/imposters`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ port, protocol: 'http', stubs: [{ responses: [{ inject: 'function () { return { body: "warm" }; }' }] }] }),
    timeoutMs: 120_000,
  });
  if (created.status !== 201) throw new Error(`warming the script sandbox: ${created.status} ${created.body}`);
  await http('GET', `http://127.0.0.1:${port}/`, { timeoutMs: 120_000 });
  await http('DELETE', `${side.admin}/imposters/${port}`, { timeoutMs: 120_000 });
}

/** One pair for a whole suite, imposters deleted after each test (see suiteResource for a failed start). */
export function pairForSuite(test: Test, args: string[] = [], svcArgs: string[] = []): () => Pair {
  return suiteResource(test, () => startPair(args, svcArgs), { stop: (pair) => pair.stop(), afterEach: deleteAll });
}

export interface SideImposters {
  side: Side;
  /** One per imposter passed to createOnBoth, ascending, so both sides list them in the same order. */
  ports: number[];
  created: HttpResponse[];
}

/** POSTs the imposters (without `port`) to both sides, each side on free ports of its own. */
export async function createOnBoth(pair: Pair, ...imposters: object[]): Promise<[SideImposters, SideImposters]> {
  const make = async (side: Side): Promise<SideImposters> => {
    const ports: number[] = [];
    while (ports.length < imposters.length) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    ports.sort((a, b) => a - b);
    const created: HttpResponse[] = [];
    for (const [i, imposter] of imposters.entries()) {
      const res = await postJson(`${side.admin}/imposters`, { ...imposter, port: ports[i] });
      if (res.status !== 201) throw new Error(`${side.name} refused the imposter (${res.status}): ${res.body}`);
      created.push(res);
    }
    return { side, ports, created };
  };
  return [await make(pair.mb), await make(pair.svc)];
}

/**
 * Clears both sides between cases. Never throws: it runs in uvu's after.each hook, where an error
 * would abort the whole run; a leftover imposter shows up in the next admin comparison instead.
 */
export async function deleteAll(pair: Pair): Promise<void> {
  const results = await Promise.allSettled([pair.mb, pair.svc].map((side) => http('DELETE', `${side.admin}/imposters`)));
  for (const [i, result] of results.entries()) {
    if (result.status === 'rejected') {
      process.stderr.write(`DELETE /imposters on ${[pair.mb, pair.svc][i]!.name} failed: ${String(result.reason)}\n`);
    }
  }
}

export function postJson(url: string, value: unknown, method = 'POST'): Promise<HttpResponse> {
  return http(method, url, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
}

export const ignoredHeaders = new Set(['date', 'content-length', 'transfer-encoding', 'keep-alive']);

export interface ResponseView {
  status: number;
  headers: Record<string, string[]>;
  body: string;
}

/** What a client observes of an imposter response; binary bodies as base64 so diffs stay readable. */
export function view(res: HttpResponse): ResponseView {
  const headers: Record<string, string[]> = {};
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!.toLowerCase();
    if (ignoredHeaders.has(name)) continue;
    (headers[name] ??= []).push(res.rawHeaders[i + 1]!);
  }
  const sorted = Object.fromEntries(Object.entries(headers).sort(([a], [b]) => a.localeCompare(b)));
  const body = isUtf8(res.bodyBytes) ? res.body : `base64:${res.bodyBytes.toString('base64')}`;
  return { status: res.status, headers: sorted, body };
}

/** A request to the first imposter of a side. */
export function send(imposters: SideImposters, method: string, path: string, options: HttpOptions = {}): Promise<HttpResponse> {
  return http(method, `http://127.0.0.1:${imposters.ports[0]}${path}`, options);
}

export interface DiffRequest {
  method?: string;
  path?: string;
  options?: HttpOptions;
  /** mountebank's expected body, so each case is known to exercise what its name says. */
  expect?: string;
}

/**
 * Creates the imposter on both sides, sends the requests in order to each, and asserts that svc's
 * answers look exactly like mountebank's (mountebank's are first checked against `expect`).
 */
export async function assertSameAnswers(pair: Pair, imposter: object, requests: DiffRequest[]): Promise<void> {
  const [mb, svc] = await createOnBoth(pair, imposter);
  const mbViews = [];
  const svcViews = [];
  for (const r of requests) {
    const method = r.method ?? 'GET';
    const path = r.path ?? '/';
    const body = r.options?.body;
    const label = `${method} ${path}${typeof body === 'string' && body !== '' ? ` «${body}»` : ''}`;
    const expected = { request: label, ...view(await send(mb, method, path, r.options)) };
    mbViews.push(expected);
    svcViews.push({ request: label, ...view(await send(svc, method, path, r.options)) });
    if (r.expect !== undefined) assert.is(expected.body, r.expect, `mountebank answered ${label} unexpectedly`);
  }
  assert.equal(svcViews, mbViews);
}

/** Per-run values: kept as a presence marker so a missing field still shows. */
const volatileKeys = new Set(['timestamp', 'requestFrom', 'ip']);

/**
 * Admin JSON with this side's addresses replaced: `http://host:adminPort` → `http://ADMIN`, each
 * imposter port (as a number, or after `:` or `/` in a string) → `PORT<n>`, numbered by the
 * caller's list so both sides map alike.
 */
export function normalizeAdmin(value: unknown, side: Side, imposterPorts: number[]): unknown {
  const portAlias = new Map(imposterPorts.map((port, i) => [port, `PORT${i}`]));
  const walk = (node: unknown, key?: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item));
    if (node && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) out[k] = volatileKeys.has(k) ? '<volatile>' : walk(v, k);
      return out;
    }
    if (key === 'port' && typeof node === 'number') return portAlias.get(node) ?? node;
    if (typeof node === 'string') {
      return (
        node
          .replace(/^https?:\/\/[^/]+:\d+/, (origin) => (origin.endsWith(`:${side.server.adminPort}`) ? 'http://ADMIN' : origin))
          // `/imposters/<port>` in links, `127.0.0.1:<port>` in recorded Host headers.
          .replace(/(?<=[:/])\d+\b/g, (digits) => portAlias.get(Number(digits)) ?? digits)
      );
    }
    return node;
  };
  return walk(value);
}

/**
 * Paths (`a.b[0].c`) where `expected` is not contained in `actual`: every object key of expected
 * must be present with a contained value; arrays must have equal length, compared element-wise.
 * Under DIFF_COMPAT=mountebank containment is equality: a key only svc has is a difference too.
 */
export function missingFrom(expected: unknown, actual: unknown, path = '$'): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    if (actual.length !== expected.length) {
      return [`${path}: expected ${expected.length} items, got ${actual.length}: ${JSON.stringify(actual)}`];
    }
    return expected.flatMap((item, i) => missingFrom(item, actual[i], `${path}[${i}]`));
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) {
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    }
    const actualRecord = actual as Record<string, unknown>;
    const extra = svcCompat
      ? Object.keys(actualRecord)
          .filter((k) => !(k in expected))
          .map((k) => `${path}.${k}: not in mountebank's answer`)
      : [];
    return [
      ...extra,
      ...Object.entries(expected).flatMap(([k, v]) =>
        k in actualRecord ? missingFrom(v, actualRecord[k], `${path}.${k}`) : [`${path}.${k}: missing (expected ${JSON.stringify(v)})`],
      ),
    ];
  }
  return Object.is(expected, actual) ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

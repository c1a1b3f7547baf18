/**
 * Runs mountebank's documentation scenarios (see docs-parser.ts) against one server and reduces each
 * answer to what mountebank's docs tester compares, so a mountebank run and an svc run can be diffed.
 *
 * What the docs tester compares (mbTest/web/docsTester): the status line, every response header but
 * `keep-alive` (names proper-cased, in order), and the body, with the first `{...}` span of the text
 * re-serialised with sorted keys and every `<volatile>` span of the expected text masked line by line.
 * Here the same parts are compared structurally, with these deliberate allowances:
 *  - `Date` and headers/JSON keys whose doc line holds a `<volatile>` span are masked;
 *  - `Content-Length` / `Transfer-Encoding` are compared as framing (which header, not the length:
 *    svc's admin bodies carry SPEC additions), recorded per step in `framing`;
 *  - svc's SPEC-mandated additions are tolerated (see `svcExtraKeys`), and so are the SPEC-mandated
 *    shapes of `DELETE /imposters/{port}` (snapshot without requests), `GET /config` (docs/imposters.md keys
 *    only) and `GET /logs` (an array either way: the entries are each server's own log);
 *  - what a proxy records of its origin's answer carries the origin's framing, `Date` and timing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { freePort, spawnServer, type HttpResponse, type RunningServer } from '../servers.js';
import { parseHttpStep, type DocScenario, type DocStep } from './docs-parser.js';

export interface Target {
  adminPort: number;
  /** Working directory of the server process (where `file` steps write). */
  cwd: string;
}

/** A server the scenarios run on, in a working directory of its own (`file` steps write there). */
export interface Side {
  target: Target;
  server: RunningServer;
}

/** Spawns `command(adminPort)` in a fresh temp directory and waits for its admin API. */
export async function startSide(name: string, command: (port: number) => string[]): Promise<Side> {
  const adminPort = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), `svc-docs-${name}-`));
  const [cmd, ...args] = command(adminPort);
  const server = await spawnServer({
    command: cmd!,
    args,
    adminPort,
    readyPath: '/imposters',
    cwd,
    cleanup: () => rmSync(cwd, { recursive: true, force: true }),
  });
  return { target: { adminPort, cwd }, server };
}

/** One executed step reduced for comparison. */
export interface StepResult {
  index: number;
  request: string;
  /** Sent to the admin port (not to an imposter). */
  admin: boolean;
  status: number;
  /** [lower-case name, value] in arrival order, framing headers and keep-alive left out. */
  headers: [string, string][];
  framing: string;
  body: unknown;
}

/** Imposter ports found in a scenario, each mapped to a port of this run. */
export function scenarioPorts(scenario: DocScenario, adminPort: number): number[] {
  const ports = new Set<number>();
  for (const step of scenario.steps) {
    for (const m of step.text.matchAll(/(?:localhost:|"port":\s*)(\d{4,5})\b/g)) ports.add(Number(m[1]));
  }
  ports.delete(adminPort);
  return [...ports].sort((a, b) => a - b);
}

/** Ports of tcp/smtp imposters the scenario creates: svc serves http and https only (docs/cli.md). */
export function unservedPorts(scenario: DocScenario): Set<number> {
  const ports = new Set<number>();
  for (const step of scenario.steps) {
    for (const m of step.text.matchAll(/"port":\s*(\d+),\s*"protocol":\s*"(tcp|smtp)"|"protocol":\s*"(tcp|smtp)"[^{}]*?"port":\s*(\d+)/g)) {
      ports.add(Number(m[1] ?? m[4]));
    }
  }
  return ports;
}

/** Why a step is not run on either side, or undefined when it runs. */
export function skipReason(step: DocStep, unserved: Set<number>): string | undefined {
  if (step.type === 'exec') return 'exec step (shell: nc/curl)';
  if (step.type === 'smtp') return 'smtp step';
  if (step.type === 'file') return undefined;
  if (step.type !== 'http') return `unknown step type ${step.type}`;
  const request = parseHttpStep(step.text);
  if (unserved.has(request.port)) return 'request to a tcp/smtp imposter';
  const target = /^\/imposters\/(\d+)/.exec(request.path);
  if (target && unserved.has(Number(target[1]))) return 'admin call on a tcp/smtp imposter';
  if (/"protocol":\s*"(tcp|smtp)"/.test(request.body) && !servedSubset(request.body)) return 'creates a tcp/smtp imposter';
  return undefined;
}

/** False when every step of the scenario is skipped (tcp/smtp imposters, shell steps): nothing to run. */
export function runnable(scenario: DocScenario): boolean {
  const unserved = unservedPorts(scenario);
  return !scenario.steps.every((step) => step.type === 'file' || skipReason(step, unserved));
}

const unservedProtocol = (imposter: { protocol?: unknown }) => imposter.protocol === 'tcp' || imposter.protocol === 'smtp';

/** A `{imposters: [...]}` body mixing protocols runs with its http/https imposters only (on both sides). */
function servedSubset(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { imposters?: { protocol?: unknown }[] };
    if (!Array.isArray(parsed.imposters)) return undefined;
    const served = parsed.imposters.filter((imposter) => !unservedProtocol(imposter));
    return served.length > 0 ? JSON.stringify({ ...parsed, imposters: served }, null, 2) : undefined;
  } catch {
    return undefined;
  }
}

/** Rewrites the docs' admin port and fixed imposter ports to this run's ports. */
export function rewrite(text: string, docsAdminPort: number, target: Target, portMap: Map<number, number>): string {
  return text.replace(/\b\d{4,5}\b/g, (digits) => {
    const n = Number(digits);
    if (n === docsAdminPort) return String(target.adminPort);
    return String(portMap.get(n) ?? digits);
  });
}

/** The docs tester's client keeps connections alive (its answers then read `Connection: keep-alive`). */
function send(agent: Agent, method: string, url: string, headers: Record<string, string>, body: string): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const bodyBytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: bodyBytes.toString('utf8'), bodyBytes });
      });
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.on('error', reject);
    req.end(body || undefined);
  });
}

/**
 * Runs every step of a scenario that is not skipped; returns one result per executed http step.
 * `exact`: bodies as answered (no reduction of the shapes SPEC fixes differently, see specShape).
 */
export async function runScenario(
  scenario: DocScenario,
  docsAdminPort: number,
  target: Target,
  portMap: Map<number, number>,
  options: { exact?: boolean } = {},
): Promise<StepResult[]> {
  const agent = new Agent({ keepAlive: true });
  try {
    return await runSteps(scenario, docsAdminPort, target, portMap, agent, options.exact === true);
  } finally {
    agent.destroy();
  }
}

async function runSteps(
  scenario: DocScenario,
  docsAdminPort: number,
  target: Target,
  portMap: Map<number, number>,
  agent: Agent,
  exact: boolean,
): Promise<StepResult[]> {
  const unserved = unservedPorts(scenario);
  const results: StepResult[] = [];
  for (const [index, step] of scenario.steps.entries()) {
    if (skipReason(step, unserved)) continue;
    if (step.type === 'file') {
      // Written beside the server process, as the docs' `process.cwd()` of mb names it.
      const file = join(target.cwd, basename(step.attributes.filename ?? ''));
      if (step.attributes.delete === 'true') rmSync(file, { force: true });
      else writeFileSync(file, step.text);
      continue;
    }
    const request = parseHttpStep(rewrite(step.text, docsAdminPort, target, portMap));
    request.body = servedSubset(request.body) ?? request.body;
    const headers: Record<string, string> = { ...request.headers };
    // The docs tester's client adds these (baseHttpClient); Content-Length is the client's to compute.
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'accept')) headers.accept = 'application/json';
    if (request.body && !('Content-Type' in headers)) headers['Content-Type'] = 'application/json';
    for (const key of Object.keys(headers)) if (key.toLowerCase() === 'content-length') delete headers[key];
    let res: HttpResponse;
    try {
      res = await send(agent, request.method, `http://127.0.0.1:${request.port}${request.path}`, headers, request.body);
    } catch (err) {
      const admin = request.port === target.adminPort;
      results.push({
        index,
        request: step.text.split('\n')[0]!,
        admin,
        status: -1,
        headers: [],
        framing: '',
        body: `request failed: ${(err as Error).message}`,
      });
      continue;
    }
    results.push({ ...reduce(index, step, request.method, request.path, res, target, exact), admin: request.port === target.adminPort });
  }
  return results;
}

function reduce(index: number, step: DocStep, method: string, path: string, res: HttpResponse, target: Target, exact: boolean): Omit<StepResult, 'admin'> {
  const volatileHeaders = new Set(['date']);
  for (const line of volatileLines(step)) {
    const header = /^([A-Za-z][\w-]*):\s/.exec(line.trim());
    if (header) volatileHeaders.add(header[1]!.toLowerCase());
  }
  const headers: [string, string][] = [];
  const framing: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!.toLowerCase();
    const value = res.rawHeaders[i + 1]!;
    if (name === 'keep-alive') continue;
    if (name === 'content-length' || name === 'transfer-encoding') {
      framing.push(name === 'content-length' ? 'content-length' : `transfer-encoding: ${value}`);
      continue;
    }
    headers.push([name, volatileHeaders.has(name) ? '<volatile>' : normalizeAdmin(value, target)]);
  }
  const text = normalizeAdmin(res.body, target);
  const contentType = String(res.headers['content-type'] ?? '');
  let body: unknown = text;
  if (contentType.startsWith('application/json') || /^\s*[{[]/.test(text)) {
    try {
      const masked = maskJson(JSON.parse(text), volatileKeys(step));
      body = exact ? masked : specShape(method, path, masked);
    } catch {
      body = maskText(text, step);
    }
  } else {
    body = maskText(text, step);
  }
  return { index, request: step.text.split('\n')[0]!, status: res.status, headers, framing: framing.join(', '), body };
}

/** The admin origin differs per side; everything else in a body is compared as sent. */
function normalizeAdmin(text: string, target: Target): string {
  return text.replaceAll(`localhost:${target.adminPort}`, 'localhost:ADMIN').replaceAll(`127.0.0.1:${target.adminPort}`, 'localhost:ADMIN');
}

function volatileLines(step: DocStep): string[] {
  const expected = step.expected;
  if (!expected) return [];
  const lines = expected.text.replace(/\r/g, '').split('\n');
  const out: string[] = [];
  for (const fragment of expected.volatile) {
    const i = lines.findIndex((line) => line.includes(fragment));
    if (i >= 0) out.push(lines.splice(i, 1)[0]!);
  }
  return out;
}

/** Per-run values mountebank's docs always mark volatile, plus any key whose doc line holds a volatile span. */
function volatileKeys(step: DocStep): Set<string> {
  const keys = new Set(['timestamp', 'requestFrom', 'ip']);
  for (const line of volatileLines(step)) {
    const key = /^\s*"([^"]+)"\s*:/.exec(line);
    if (key) keys.add(key[1]!);
  }
  return keys;
}

/** Origin-dependent parts of a proxy-recorded response (mountebank streams chunked, svc sends a length). */
const recordedFromOrigin = new Set(['date', 'transfer-encoding', 'content-length']);

function withoutFraming(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object') return headers;
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !['transfer-encoding', 'content-length'].includes(k.toLowerCase())));
}

function maskJson(value: unknown, keys: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => maskJson(item, keys));
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if ('_proxyResponseTime' in record) return maskRecorded(record, keys);
    const out = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, keys.has(k) ? '<volatile>' : maskJson(v, keys)]));
    const is = record.is as Record<string, unknown> | undefined;
    if (is && typeof is === 'object' && is.headers && typeof is.headers === 'object') {
      // A recorded answer keeps its origin's framing even once `_proxyResponseTime` is gone (replayable).
      out.is = { ...(out.is as object), headers: withoutFraming(out.is && (out.is as Record<string, unknown>).headers) };
    }
    if (is && typeof is === 'object' && '_proxyResponseTime' in is && Array.isArray(out.behaviors)) {
      // addWaitBehavior records the origin's response time as the wait, and no wait when it took 0 ms.
      const kept = out.behaviors.filter((b: Record<string, unknown>) => !('wait' in b));
      if (kept.length > 0) out.behaviors = kept;
      else delete out.behaviors;
    }
    return out;
  }
  // Clock readings (a decorated "The time is 08:03:03") differ by run even where the docs do not mark them.
  return typeof value === 'string' ? value.replace(/\b\d\d:\d\d:\d\d\b/g, 'HH:MM:SS') : value;
}

/** An `is` a proxy recorded: timing and the origin's framing headers are per run. */
function maskRecorded(recorded: Record<string, unknown>, keys: Set<string>): unknown {
  const { _proxyResponseTime: _time, ...rest } = recorded;
  const out: Record<string, unknown> = { ...(maskJson(rest, keys) as Record<string, unknown>), _proxyResponseTime: '<volatile>' };
  if (out.headers && typeof out.headers === 'object') {
    out.headers = Object.fromEntries(Object.entries(out.headers as Record<string, unknown>).filter(([k]) => !recordedFromOrigin.has(k.toLowerCase())));
  }
  return out;
}

/** Reduces bodies whose shape SPEC fixes differently from mountebank to the parts both share. */
function specShape(method: string, path: string, body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  const bare = path.split('?')[0]!;
  if (method === 'DELETE' && /^\/imposters\/\d+$/.test(bare) && 'port' in record) {
    // docs/imposters.md: the deleted-imposter snapshot has numberOfRequests 0 and empty requests.
    return { ...record, numberOfRequests: '<SPEC: 0>', requests: '<SPEC: []>' };
  }
  if (method === 'GET' && bare === '/config') {
    const options = (record.options ?? {}) as Record<string, unknown>;
    return { options: { allowInjection: options.allowInjection, localOnly: options.localOnly, ipWhitelist: options.ipWhitelist } };
  }
  if (method === 'GET' && bare === '/logs' && Array.isArray(record.logs)) {
    return { logs: '<array>' };
  }
  return body;
}

/** Text bodies: a line holding a volatile span is reduced to its fixed prefix, as the docs tester does. */
function maskText(text: string, step: DocStep): string {
  const patterns = volatileLines(step).map((line) => {
    const fragment = step.expected!.volatile.find((v) => line.includes(v))!;
    return line.trim().slice(0, line.trim().indexOf(fragment));
  });
  return text
    .split('\n')
    .map((line) => {
      const prefix = patterns.find((p) => p && line.trim().startsWith(p));
      return prefix === undefined ? line : `${prefix}<volatile>`;
    })
    .join('\n');
}

/**
 * Keys svc adds by SPEC: stub `id` (§2.2), list-entry `stubCount`/`enabled`/`recordRequests` (§2.1),
 * recorded-request `status`/`latencyMs`/`matchOutcome` (§2.9), error `type` (§7), `_svc` extensions.
 */
export const svcExtraKeys = new Set(['id', 'stubCount', 'enabled', 'recordRequests', 'status', 'latencyMs', 'matchOutcome', 'type', '_svc']);

/** Differences between mountebank's value and svc's, as `path: message` lines. */
export function diffJson(mb: unknown, svc: unknown, path = '$'): string[] {
  if (Array.isArray(mb)) {
    if (!Array.isArray(svc)) return [`${path}: mountebank ${JSON.stringify(mb)}, svc ${JSON.stringify(svc)}`];
    if (mb.length !== svc.length) return [`${path}: mountebank has ${mb.length} items, svc ${svc.length}: ${JSON.stringify(svc)}`];
    return mb.flatMap((item, i) => diffJson(item, svc[i], `${path}[${i}]`));
  }
  if (mb && typeof mb === 'object') {
    if (!svc || typeof svc !== 'object' || Array.isArray(svc)) return [`${path}: mountebank ${JSON.stringify(mb)}, svc ${JSON.stringify(svc)}`];
    const m = mb as Record<string, unknown>;
    const s = svc as Record<string, unknown>;
    const out: string[] = [];
    for (const [k, v] of Object.entries(m)) {
      // docs/recording-and-verify.md: a recorded request without a body omits `body`.
      if (!(k in s)) {
        if (!(k === 'body' && v === '')) out.push(`${path}.${k}: missing in svc (mountebank ${JSON.stringify(v)})`);
        continue;
      }
      out.push(...diffJson(v, s[k], `${path}.${k}`));
    }
    for (const k of Object.keys(s)) if (!(k in m) && !svcExtraKeys.has(k)) out.push(`${path}.${k}: only in svc (${JSON.stringify(s[k])})`);
    return out;
  }
  return Object.is(mb, svc) ? [] : [`${path}: mountebank ${JSON.stringify(mb)}, svc ${JSON.stringify(svc)}`];
}

/**
 * Steps whose framing differs, as `step n: mountebank <framing> / svc <framing>` (the docs tester
 * compares the Content-Length / Transfer-Encoding header line, so svc frames answers as node:http does).
 */
export function framingDifferences(mb: StepResult[], svc: StepResult[]): string[] {
  return mb.flatMap((m, i) => {
    const s = svc[i];
    return s && s.framing !== m.framing ? [`step ${m.index + 1}: mountebank ${m.framing || 'none'} / svc ${s.framing || 'none'}`] : [];
  });
}

/** Every difference between two runs of one scenario (empty when svc answers as mountebank does). */
export function compareRuns(mb: StepResult[], svc: StepResult[]): string[] {
  const out: string[] = [];
  for (const [i, m] of mb.entries()) {
    const s = svc[i];
    const where = `step ${m.index + 1} (${m.request})`;
    if (!s) {
      out.push(`${where}: not run on svc`);
      continue;
    }
    if (m.status !== s.status) out.push(`${where}: status mountebank ${m.status}, svc ${s.status}`);
    const mh = JSON.stringify(m.headers);
    const sh = JSON.stringify(s.headers);
    if (mh !== sh) out.push(`${where}: headers\n    mountebank ${mh}\n    svc        ${sh}`);
    out.push(...diffJson(m.body, s.body, 'body').map((d) => `${where}: ${d}`));
  }
  return out;
}

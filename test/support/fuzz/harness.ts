/**
 * The robustness suite's target and checks, shared by the seeded test (test/fuzz/fuzz-seeded.test.ts)
 * and the long run (`node --import tsx test/fuzz/run.ts`): a real `svc` process, one known imposter,
 * and a check per generated case that returns what went wrong, if anything.
 */
import { freePort, http, startSvc, type RunningServer } from '../servers.js';
import type { AdminCase, FuzzPorts, RawCase } from './arbitraries.js';
import { exchange, type WireOutcome, type WireResponse } from './wire.js';

/** Generous: a request on a busy 2-core box answers in milliseconds; this only catches a wedge. */
export const ANSWER_BOUND_MS = 15_000;

/**
 * Malformed bytes followed by the client's FIN: the server answers or closes at once (well under
 * 100 ms); still open after this long, the socket is left half-closed.
 */
export const CLOSE_AFTER_FIN_BOUND_MS = 2_000;

export type FindingKind = 'crash' | 'hang' | 'no-answer' | 'garbled' | 'server-error' | 'no-envelope' | 'state-changed' | 'open-after-fin';

export interface Finding {
  kind: FindingKind;
  detail: string;
}

/** Documented 5xx (docs/errors.md) a fuzzed admin request may earn: apply failures on bulk replace carry a report. */
const DOCUMENTED_5XX_TYPES = new Set(['apply_failed']);

const H2_PREFACE = Buffer.from('PRI * HTTP/2.0');

export interface FuzzTarget {
  readonly ports: FuzzPorts;
  readonly adminPort: number;
  checkAdmin(c: AdminCase): Promise<Finding | undefined>;
  checkRaw(c: RawCase): Promise<Finding | undefined>;
  /** /health on the admin port and a stub on the imposter both answer. */
  alive(): Promise<Finding | undefined>;
  readonly stats: FuzzStats;
  stop(): Promise<void>;
}

export interface FuzzStats {
  /** Answers by status (`closed`, `timeout`, `garbled` when there was none), per port. */
  admin: Map<string, number>;
  imposter: Map<string, number>;
  /** Accepted admin changes undone to get back to the baseline state. */
  resets: number;
}

function tally(counts: Map<string, number>, outcome: WireOutcome): void {
  const key = outcome.kind === 'response' ? String(outcome.response.status) : outcome.kind;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function baselineImposter(port: number): Record<string, unknown> {
  return {
    port,
    protocol: 'http',
    name: 'fuzzed',
    stubs: [
      { id: 's1', predicates: [{ equals: { path: '/a' } }], responses: [{ is: { statusCode: 200, body: 'a' } }] },
      { id: 's2', predicates: [{ deepEquals: { query: { q: '1' } } }], responses: [{ is: { body: { json: true } } }] },
    ],
  };
}

/** The docs/errors.md envelope: `{errors: [{code, type, message}, ...]}`, non-empty. */
export function envelopeProblem(response: WireResponse): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString('utf8'));
  } catch {
    return `body is not JSON: ${JSON.stringify(response.body.toString('utf8').slice(0, 120))}`;
  }
  const list = (parsed as { errors?: unknown })?.errors;
  if (!Array.isArray(list) || list.length === 0) return `no errors list: ${JSON.stringify(parsed).slice(0, 120)}`;
  for (const entry of list) {
    const e = entry as Record<string, unknown>;
    if (typeof e?.code !== 'string' || typeof e.type !== 'string' || typeof e.message !== 'string')
      return `malformed entry ${JSON.stringify(entry).slice(0, 120)}`;
  }
  if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) return `content-type ${response.headers.get('content-type')}`;
  return undefined;
}

function errorType(response: WireResponse): string | undefined {
  try {
    return JSON.parse(response.body.toString('utf8')).errors[0].type as string;
  } catch {
    return undefined;
  }
}

function requestBytes(c: AdminCase, adminPort: number): Buffer {
  const head = [`${c.method} ${c.target} HTTP/1.1`, `Host: 127.0.0.1:${adminPort}`, 'Connection: close', 'Content-Type: application/json'];
  if (c.body === undefined) return Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'utf8');
  const body = Buffer.from(c.body, 'utf8');
  if (c.chunked) {
    return Buffer.concat([
      Buffer.from(`${head.join('\r\n')}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`, 'utf8'),
      body,
      Buffer.from('\r\n0\r\n\r\n'),
    ]);
  }
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\nContent-Length: ${body.length}\r\n\r\n`, 'utf8'), body]);
}

function describeOutcome(outcome: WireOutcome): string {
  if (outcome.kind === 'response') return `${outcome.response.status} ${outcome.response.body.toString('utf8').slice(0, 160)}`;
  return `${outcome.kind} after ${outcome.raw.length} bytes: ${JSON.stringify(outcome.raw.toString('latin1').slice(0, 120))}`;
}

/** What a rejected or failed answer must look like: an envelope, and a 5xx only where documented. */
function answerProblem(response: WireResponse, head: boolean): Finding | undefined {
  if (response.status < 400) return undefined;
  if (!head) {
    const problem = envelopeProblem(response);
    if (problem !== undefined) return { kind: 'no-envelope', detail: `${response.status}: ${problem}` };
  }
  if (response.status >= 500 && !DOCUMENTED_5XX_TYPES.has(errorType(response) ?? '')) {
    return { kind: 'server-error', detail: `${response.status} ${response.body.toString('utf8').slice(0, 200)}` };
  }
  return undefined;
}

/** Starts `svc` (the CLI, so a crash is a dead process, not a dead test runner) with one imposter. */
export async function startFuzzTarget(): Promise<FuzzTarget> {
  const [metricsPort, imposterPort, sparePort] = [await freePort(), await freePort(), await freePort()];
  const server: RunningServer = await startSvc({
    args: ['--metrics-port', String(metricsPort), '--nologfile', '--loglevel', 'error', '--pidfile', `/tmp/svc-fuzz-${process.pid}.pid`],
  });
  const base = `http://127.0.0.1:${server.adminPort}`;
  const ports: FuzzPorts = { imposter: imposterPort, spare: sparePort };

  const snapshot = async (): Promise<string> => {
    const res = await http('GET', `${base}/imposters?replayable=true`, { timeoutMs: ANSWER_BOUND_MS });
    if (res.status !== 200) throw new Error(`GET /imposters answered ${res.status}`);
    return res.body;
  };
  const reset = async (): Promise<string> => {
    await http('DELETE', `${base}/intercept`, { timeoutMs: ANSWER_BOUND_MS });
    const res = await http('PUT', `${base}/imposters`, {
      body: JSON.stringify({ imposters: [baselineImposter(imposterPort)] }),
      headers: { 'Content-Type': 'application/json' },
      timeoutMs: ANSWER_BOUND_MS,
    });
    if (res.status !== 200) throw new Error(`resetting the fuzzed state answered ${res.status}: ${res.body}`);
    // Enabled is runtime state: a bulk replace with an unchanged config keeps a disabled imposter disabled.
    await http('POST', `${base}/imposters/${imposterPort}/enable`, { timeoutMs: ANSWER_BOUND_MS });
    return snapshot();
  };
  const stats: FuzzStats = { admin: new Map(), imposter: new Map(), resets: 0 };
  const baseline = await reset();
  let current = baseline;
  const undo = async (): Promise<string> => {
    stats.resets += 1;
    return reset();
  };

  const alive = async (): Promise<Finding | undefined> => {
    try {
      const health = await http('GET', `${base}/health`, { timeoutMs: ANSWER_BOUND_MS });
      const stub = await http('GET', `http://127.0.0.1:${imposterPort}/a`, { timeoutMs: ANSWER_BOUND_MS });
      if (health.status !== 200) return { kind: 'crash', detail: `health ${health.status} ${health.body}` };
      if (stub.status !== 200 || stub.body !== 'a') {
        current = await undo();
        return { kind: 'state-changed', detail: `the fuzzed imposter's stub answered ${stub.status} ${JSON.stringify(stub.body.slice(0, 100))}` };
      }
      return undefined;
    } catch (err) {
      return { kind: 'crash', detail: `no answer: ${(err as Error).message}` };
    }
  };

  return {
    ports,
    adminPort: server.adminPort,
    alive,
    stats,
    async checkAdmin(c) {
      const head = c.method === 'HEAD';
      const outcome = await exchange(server.adminPort, requestBytes(c, server.adminPort), { boundMs: ANSWER_BOUND_MS, endWrite: false, head });
      tally(stats.admin, outcome);
      let after: string;
      try {
        after = await snapshot();
      } catch (err) {
        return { kind: 'crash', detail: `${(err as Error).message} after ${describeOutcome(outcome)}` };
      }
      if (outcome.kind === 'timeout') return { kind: 'hang', detail: describeOutcome(outcome) };
      if (outcome.kind !== 'response') return { kind: outcome.kind === 'closed' ? 'no-answer' : 'garbled', detail: describeOutcome(outcome) };
      const problem = answerProblem(outcome.response, head);
      if (problem) return problem;
      if (outcome.response.status >= 400 && after !== current) {
        const finding: Finding = { kind: 'state-changed', detail: `${describeOutcome(outcome)}; GET /imposters changed` };
        current = await undo();
        return finding;
      }
      // An accepted change (a created imposter, a deleted stub, a disabled imposter, which the config
      // snapshot does not show...) is undone so every case starts alike.
      const reads = c.method === 'GET' || c.method === 'HEAD' || c.method === 'OPTIONS';
      const accepted = outcome.response.status < 400;
      current = after === baseline && (reads || !accepted) ? after : await undo();
      return undefined;
    },
    async checkRaw(c) {
      const head = c.bytes.subarray(0, 5).toString('latin1') === 'HEAD ';
      const outcome = await exchange(imposterPort, c.bytes, { boundMs: c.wellFormed ? ANSWER_BOUND_MS : CLOSE_AFTER_FIN_BOUND_MS, endWrite: true, head });
      tally(stats.imposter, outcome);
      if (c.bytes.subarray(0, H2_PREFACE.length).equals(H2_PREFACE)) return alive();
      switch (outcome.kind) {
        case 'response': {
          const problem = answerProblem(outcome.response, head);
          if (problem) return problem;
          break;
        }
        case 'timeout':
          return { kind: c.wellFormed ? 'hang' : 'open-after-fin', detail: describeOutcome(outcome) };
        case 'garbled':
          return { kind: 'garbled', detail: describeOutcome(outcome) };
        case 'closed':
          if (c.wellFormed) return { kind: 'no-answer', detail: describeOutcome(outcome) };
          break;
      }
      return undefined;
    },
    stop: () => server.stop(),
  };
}

import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { errorText, isObject } from '../../engine/model/index.js';
import { parseVerify, type VerifyStep } from './annotation.js';
import { drive, mismatch } from './drive.js';
import { dynamicKinds, faultExpectation, type FaultExpectation } from './dynamic.js';
import { requestFromPredicates } from './synthesize.js';
import { aimProxiesAt, startUpstream, UPSTREAM_BODY, type EmbeddedUpstream } from './upstream.js';

/**
 * `default`: dynamic stubs checked only through their `_verify`; `skip` (--skip-dynamic): dynamic stubs
 * are SKIP; `verify` (--verify-dynamic): proxies via an embedded upstream, `_verify` sequences,
 * deterministic faults; `both`: a static pass over the static stubs, then a `verify` pass over the
 * dynamic ones (each stub reported once).
 */
export type DynamicMode = 'default' | 'skip' | 'verify' | 'both';

export interface StubVerdict {
  verdict: 'PASS' | 'FAIL' | 'SKIP';
  /** `imposter 4545 stub 0 (id)` */
  label: string;
  reason: string;
}

/** What a check against a fresh imposter copy concluded: a FAIL reason, or the PASS note. */
type Check = { pass: true; note: string } | { pass: false; reason: string };

/** A stub that is not checked, and why. */
interface Skip {
  skip: string;
}

function stepLabel(index: number, request: VerifyStep['request']): string {
  return `step ${index + 1} (${request.method} ${request.path})`;
}

/**
 * Verifies each stub of each imposter (docs/recording-and-verify.md) against a fresh in-process copy of its imposter on
 * an ephemeral port, calling `report` as each verdict is reached. The config is the caller's own, so
 * scripted responses run (as with `--allowInjection`).
 */
export async function verifyImposters(imposters: unknown[], mode: DynamicMode, report: (verdict: StubVerdict) => void): Promise<void> {
  const manager = new ImposterManager({ allowInjection: true, host: '127.0.0.1', log: createLogger({ level: 'error', quiet: true }) });
  let upstream: EmbeddedUpstream | undefined;
  const upstreamOrigin = async () => (upstream ??= await startUpstream()).origin;

  /** Runs `work` against a fresh copy of the imposter (port left to the allocator). */
  async function withCopy(body: Record<string, unknown>, aimProxies: boolean, work: (protocol: string, port: number) => Promise<Check>): Promise<Check> {
    const copy = structuredClone(body);
    delete copy.port;
    if (aimProxies && Array.isArray(copy.stubs)) {
      const origin = await upstreamOrigin();
      for (const stub of copy.stubs) if (isObject(stub)) aimProxiesAt(stub, origin);
    }
    let port: number;
    try {
      port = (await manager.createImposter(copy)).port;
    } catch (err) {
      return { pass: false, reason: `imposter rejected: ${errorText(err)}` };
    }
    try {
      return await work(typeof copy.protocol === 'string' ? copy.protocol : 'http', port);
    } finally {
      await manager.deleteImposter(port, { baseUrl: 'http://localhost' });
    }
  }

  const sequence = (body: Record<string, unknown>, steps: VerifyStep[]) =>
    withCopy(body, false, async (protocol, port) => {
      for (const [index, step] of steps.entries()) {
        const problem = mismatch(await drive(protocol, port, step.request), step.expect);
        if (problem !== undefined) return { pass: false, reason: `${stepLabel(index, step.request)}: ${problem}` };
      }
      return { pass: true, note: `${steps.length} step(s)` };
    });

  const proxied = (body: Record<string, unknown>, request: VerifyStep['request']) =>
    withCopy(body, true, async (protocol, port) => {
      const before = upstream?.received ?? 0;
      const outcome = await drive(protocol, port, request);
      if (outcome.kind === 'answer' && outcome.body === UPSTREAM_BODY && (upstream?.received ?? 0) > before) {
        return { pass: true, note: `${request.method} ${request.path} proxied to the embedded upstream` };
      }
      const got = outcome.kind === 'answer' ? `status ${outcome.status}` : outcome.code;
      return { pass: false, reason: `${request.method} ${request.path} was not proxied to the embedded upstream (got ${got})` };
    });

  const faulted = (body: Record<string, unknown>, request: VerifyStep['request'], expected: FaultExpectation) =>
    withCopy(body, false, async (protocol, port) => {
      const outcome = await drive(protocol, port, request);
      const took = Math.round(outcome.elapsedMs);
      // The fault delays at least its delay; a millisecond of slack for the client's own clock reading.
      if (outcome.elapsedMs + 1 < expected.minElapsedMs) return { pass: false, reason: `expected latency >= ${expected.minElapsedMs} ms, took ${took} ms` };
      if (expected.tcp) {
        if (outcome.kind === 'failed') return { pass: true, note: `tcp fault observed (${outcome.code})` };
        return { pass: false, reason: `expected the connection reset, got status ${outcome.status}` };
      }
      if (outcome.kind === 'failed') return { pass: false, reason: `no answer (${outcome.code})` };
      if (expected.status !== undefined && outcome.status !== expected.status)
        return { pass: false, reason: `expected error status ${expected.status}, got ${outcome.status}` };
      const notes = [
        ...(expected.minElapsedMs > 0 ? [`latency ${took} ms >= ${expected.minElapsedMs} ms`] : []),
        ...(expected.status !== undefined ? [`error status ${expected.status}`] : []),
      ];
      return { pass: true, note: notes.join(', ') };
    });

  async function verdictOf(body: Record<string, unknown>, stub: Record<string, unknown>, mode: Exclude<DynamicMode, 'both'>): Promise<Check | Skip> {
    let steps: VerifyStep[];
    try {
      steps = parseVerify(stub._verify);
    } catch (err) {
      return { pass: false, reason: `malformed _verify: ${errorText(err)}` };
    }
    const kinds = dynamicKinds(stub);
    if (kinds.length === 0) return steps.length > 0 ? sequence(body, steps) : { skip: 'no _verify sequence' };
    const what = `dynamic (${kinds.join(', ')})`;
    if (mode === 'skip') return { skip: `${what}: --skip-dynamic` };
    if (mode === 'default')
      return steps.length > 0 ? sequence(body, steps) : { skip: `${what}: nothing to verify with (--verify-dynamic checks proxies and deterministic faults)` };
    const request = steps[0]?.request ?? requestFromPredicates(stub.predicates);
    if (kinds.includes('proxy')) return proxied(body, request);
    if (steps.length > 0) return sequence(body, steps);
    const fault = faultExpectation(stub);
    if (fault === 'probabilistic') return { skip: `${what}: probabilistic fault, nothing certain to check` };
    if (fault !== undefined) return faulted(body, request, fault);
    return { skip: `${what}: nothing to verify with` };
  }

  /** One pass over every stub; `only` picks the stubs it reports (the static or the dynamic ones, for `both`). */
  async function pass(passMode: Exclude<DynamicMode, 'both'>, only?: 'static' | 'dynamic'): Promise<void> {
    for (const [index, body] of imposters.entries()) {
      const name = isObject(body) && body.port !== undefined ? `imposter ${JSON.stringify(body.port)}` : `imposter #${index + 1}`;
      const stubs = isObject(body) && Array.isArray(body.stubs) ? body.stubs : [];
      if (!isObject(body) || stubs.length === 0) {
        if (only !== 'dynamic') report({ verdict: 'SKIP', label: name, reason: 'no stubs' });
        continue;
      }
      for (const [stubIndex, stub] of stubs.entries()) {
        const dynamic = isObject(stub) && dynamicKinds(stub).length > 0;
        if (only !== undefined && (only === 'dynamic') !== dynamic) continue;
        const id = isObject(stub) && typeof stub.id === 'string' ? ` (${stub.id})` : '';
        const label = `${name} stub ${stubIndex}${id}`;
        const result = isObject(stub) ? await verdictOf(body, stub, passMode) : { pass: false as const, reason: 'stub is not an object' };
        if ('skip' in result) report({ verdict: 'SKIP', label, reason: result.skip });
        else if (result.pass) report({ verdict: 'PASS', label, reason: result.note });
        else report({ verdict: 'FAIL', label, reason: result.reason });
      }
    }
  }

  try {
    if (mode === 'both') {
      await pass('skip', 'static');
      await pass('verify', 'dynamic');
    } else {
      await pass(mode);
    }
  } finally {
    await manager.close();
    await upstream?.close();
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import { type FaultRandom, type ResolveContext, type ResponseOutcome, canonicalFault } from '../shared/index.js';
import { compileFaultBlock } from './compile.js';
import type { CompiledFaults, FaultedResponse } from './types.js';

/** Each stub response's block is compiled on its first use and kept as long as the response lives. */
const compiledBlocks = new WeakMap<FaultedResponse, CompiledFaults | null>();

function faultsOf(compiled: FaultedResponse): CompiledFaults | null {
  let faults = compiledBlocks.get(compiled);
  if (faults === undefined) {
    faults = compileFaultBlock(compiled.config);
    compiledBlocks.set(compiled, faults);
  }
  return faults;
}

function fires(probability: number, random: FaultRandom): boolean {
  return probability >= 1 || (probability > 0 && random() < probability);
}

/** The metrics label for the matched stub: its id, else `<port>:<stubIndex>`. */
function ruleIdOf(ctx: ResolveContext): string {
  return ctx.stubId ?? `${ctx.imposter.port}:${ctx.stubIndex}`;
}

/** A top-level `fault` response that reached the wire as a real TCP fault. */
function countFaultResponse(outcome: ResponseOutcome, compiled: FaultedResponse, ctx: ResolveContext): void {
  if (outcome.kind === 'transport' && compiled.type === 'fault' && canonicalFault(outcome.fault) !== undefined) {
    ctx.imposter.observers.onFault('tcp', ruleIdOf(ctx), 'fault');
  }
}

/** The outcome after the fault block, and whether any of its faults fired (the proxy metric's `fault_applied`). */
export interface FaultedOutcome {
  outcome: ResponseOutcome;
  faultApplied: boolean;
}

/** What the fault block drew for one request: the outcome, whether a fault fired, and the latency to wait first (whole ms, 0: none). */
export interface DrawnFaults extends FaultedOutcome {
  delayMs: number;
}

/**
 * The `_svc.fault` step's draws (docs/faults.md), after the response type and behaviors: latency
 * delays and continues, then a firing tcp fault replaces the response, else a firing error does.
 * Every draw is made before any delay, so the imposter's draw sequence follows request arrival order.
 */
export function drawFaultBlock(outcome: ResponseOutcome, compiled: FaultedResponse, ctx: ResolveContext): DrawnFaults {
  const faults = faultsOf(compiled);
  if (faults === null) {
    countFaultResponse(outcome, compiled, ctx);
    return { outcome, faultApplied: false, delayMs: 0 };
  }
  const { random, observers } = ctx.imposter;
  let delayMs = -1;
  let result = outcome;
  if (faults.latency && fires(faults.latency.probability, random)) {
    const { minMs, maxMs } = faults.latency;
    delayMs = minMs === maxMs ? minMs : minMs + random() * (maxMs - minMs);
    const ruleId = ruleIdOf(ctx);
    observers.onFault('latency', ruleId, '_svc.fault');
    observers.onLatencyInjected(ruleId, delayMs);
  }
  if (faults.tcp && fires(faults.tcp.probability, random)) {
    result = { kind: 'transport', fault: faults.tcp.type };
    if (canonicalFault(faults.tcp.type) !== undefined) observers.onFault('tcp', ruleIdOf(ctx), '_svc.fault');
  } else if (faults.error && fires(faults.error.probability, random)) {
    result = { kind: 'http', response: faults.error.response };
    const ruleId = ruleIdOf(ctx);
    observers.onFault('error', ruleId, '_svc.fault');
    observers.onErrorStatus(faults.error.status, ruleId);
  } else {
    countFaultResponse(outcome, compiled, ctx);
  }
  // Rounded up: timers drop the fraction, and the client must wait at least the drawn delay.
  return { outcome: result, faultApplied: delayMs >= 0 || result !== outcome, delayMs: delayMs > 0 ? Math.ceil(delayMs) : 0 };
}

/** The `_svc.fault` step: drawFaultBlock, then its latency. */
export function applyFaultBlock(outcome: ResponseOutcome, compiled: FaultedResponse, ctx: ResolveContext): FaultedOutcome | Promise<FaultedOutcome> {
  const drawn = drawFaultBlock(outcome, compiled, ctx);
  const faulted = { outcome: drawn.outcome, faultApplied: drawn.faultApplied };
  // Unref'd: a pending delay must not keep a stopping process alive (its connection is closed anyway).
  return drawn.delayMs > 0 ? sleep(drawn.delayMs, undefined, { ref: false }).then(() => faulted) : faulted;
}

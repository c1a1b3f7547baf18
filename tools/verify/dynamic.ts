import { isObject } from '../../engine/model/index.js';
import { responseTypeOf } from '../../engine/respond/index.js';

/** What makes a stub's answer depend on more than its config (docs/recording-and-verify.md "dynamic stubs"). */
export type DynamicKind = 'proxy' | 'inject' | 'script' | 'fault';

function responsesOf(stub: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(stub.responses) ? stub.responses.filter(isObject) : [];
}

/** The dynamic kinds among a stub's responses (empty for a static stub). */
export function dynamicKinds(stub: Record<string, unknown>): DynamicKind[] {
  const kinds = new Set<DynamicKind>();
  for (const response of responsesOf(stub)) {
    // The type the engine serves, by docs/responses.md precedence: `{is, proxy: null}` is an `is` response.
    const type = responseTypeOf(response);
    if (type === 'proxy' || type === 'inject' || type === 'fault') kinds.add(type);
    const svc = response._svc;
    if (isObject(svc)) {
      if (type === '_svc' && svc.script !== undefined) kinds.add('script');
      if (svc.fault !== undefined) kinds.add('fault');
    }
    const behaviors = response._behaviors ?? response.behaviors;
    const scripted = (b: unknown) => isObject(b) && (b.decorate !== undefined || b.shellTransform !== undefined);
    if (Array.isArray(behaviors) ? behaviors.some(scripted) : scripted(behaviors)) kinds.add('script');
  }
  return [...kinds];
}

/** What a deterministic fault makes the first request observe. */
export interface FaultExpectation {
  /** Connection reset (or closed) instead of an answer. */
  tcp: boolean;
  /** The answer arrives no sooner than this. */
  minElapsedMs: number;
  /** The error fault's status, when no tcp fault fires first. */
  status?: number;
}

function probabilityOf(member: unknown): number {
  return isObject(member) && typeof member.probability === 'number' ? member.probability : 1;
}

/**
 * The fault the stub's first response always injects; 'probabilistic' when a member fires only
 * sometimes (nothing certain to check), undefined without faults.
 */
export function faultExpectation(stub: Record<string, unknown>): FaultExpectation | 'probabilistic' | undefined {
  const first = responsesOf(stub)[0];
  if (first === undefined) return undefined;
  if (responseTypeOf(first) === 'fault') {
    return { tcp: true, minElapsedMs: 0 };
  }
  const block = isObject(first._svc) ? first._svc.fault : undefined;
  if (!isObject(block)) return undefined;
  const members = [block.latency, block.tcp, block.error].filter((member) => member !== undefined);
  if (members.some((member) => probabilityOf(member) < 1)) return 'probabilistic';
  const latency = block.latency;
  const minElapsedMs = isObject(latency) ? Number(latency.ms ?? latency.minMs ?? 0) : 0;
  const error = block.error;
  return {
    tcp: block.tcp !== undefined,
    minElapsedMs,
    status: isObject(error) && typeof error.status === 'number' ? error.status : undefined,
  };
}

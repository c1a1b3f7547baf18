import type { PreparedResponse } from '../is-response.js';

/** Which configuration produced an injected fault: the `_svc.fault` block or mountebank's `fault` response. */
export type FaultSource = '_svc.fault' | 'fault';

export type FaultKind = 'latency' | 'error' | 'tcp';

/** The metrics hooks fault injection reports to (implemented by the engine's ObserverSet). */
export interface FaultObserver {
  onFault(type: FaultKind, ruleId: string, source: FaultSource): void;
  onLatencyInjected(ruleId: string, ms: number): void;
  onErrorStatus(status: number, ruleId: string): void;
}

/** A `_svc.fault` block compiled once per stub response; probabilities are in [0, 1]. */
export interface CompiledFaults {
  latency?: { probability: number; minMs: number; maxMs: number };
  /** `type` as written: an unknown name answers 500 `Unknown fault` when it fires. */
  tcp?: { probability: number; type: string };
  error?: { probability: number; status: number; response: PreparedResponse };
}

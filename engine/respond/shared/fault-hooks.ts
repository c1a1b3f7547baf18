/**
 * What an imposter lends fault injection: its metrics hooks and its draw source. A leaf, so the
 * imposter scope (outcome.ts) and the fault step (faults/) can both name them without a cycle.
 */

/** Which configuration produced an injected fault: the `_svc.fault` block or mountebank's `fault` response. */
export type FaultSource = '_svc.fault' | 'fault';

export type FaultKind = 'latency' | 'error' | 'tcp';

/** The metrics hooks fault injection reports to (implemented by the engine's ObserverSet). */
export interface FaultObserver {
  onFault(type: FaultKind, ruleId: string, source: FaultSource): void;
  onLatencyInjected(ruleId: string, ms: number): void;
  onErrorStatus(status: number, ruleId: string): void;
}

/** A source of uniform numbers in [0, 1): each imposter owns one so its fault draws are reproducible. */
export type FaultRandom = () => number;

import type { PreparedResponse } from '../shared/index.js';

/** A `_svc.fault` block compiled once per stub response; probabilities are in [0, 1]. */
export interface CompiledFaults {
  latency?: { probability: number; minMs: number; maxMs: number };
  /** `type` as written: an unknown name answers 500 `Unknown fault` when it fires. */
  tcp?: { probability: number; type: string };
  error?: { probability: number; status: number; response: PreparedResponse };
}

/** What fault injection reads of a compiled stub response (compile-response.ts's CompiledResponse is one). */
export interface FaultedResponse {
  config: Record<string, unknown>;
  type: string;
}

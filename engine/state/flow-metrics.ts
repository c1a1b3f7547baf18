/**
 * Where a store reports `svc_flow_state_ops_total{operation,result}` and `svc_active_flows{backend}`
 * (docs/metrics-and-events.md); the engine's observer set implements it.
 */
export interface FlowStoreMetrics {
  /** `operation`: get, set, exists, delete, incr, cas, ttl, clear, entries; `result`: ok, miss, conflict, error. */
  onFlowStateOp(operation: string, result: string): void;
  onActiveFlows(backend: string, delta: number): void;
}

/** Runs one store operation and counts it: `classify` names a success, a rejection counts `error`. */
export async function counted<T>(
  metrics: FlowStoreMetrics | undefined,
  operation: string,
  run: () => Promise<T>,
  classify: (value: T) => string = () => 'ok',
): Promise<T> {
  if (!metrics) return run();
  try {
    const value = await run();
    metrics.onFlowStateOp(operation, classify(value));
    return value;
  } catch (err) {
    metrics.onFlowStateOp(operation, 'error');
    throw err;
  }
}

import type { RecordedRequest } from './recorded-request.js';

export type LifecycleAction = 'created' | 'replaced' | 'stubsChanged' | 'deleted' | 'allDeleted';

/**
 * What the engine tells the planes around it (metrics, event stream, data directory).
 * Every member is optional and called synchronously: implementations must be cheap and never throw.
 */
export interface EngineObserver {
  /** Every request answered with an HTTP status (not TCP faults). */
  onRequest?(port: number, method: string, status: number): void;
  /**
   * A recorded request once its status and latency are stamped (debug-path requests: once recorded).
   * `flowId` is the flow id resolved at record time; absent means the imposter port.
   */
  onRecorded?(port: number, index: number, request: RecordedRequest, flowId?: string): void;
  /** Whether onRecorded has anyone to tell now (a fleet fetches other nodes' records only then). */
  wantsRecords?(): boolean;
  /** Imposter lifecycle; `port` is null for `allDeleted`. */
  onLifecycle?(action: LifecycleAction, port: number | null): void;

  // Metrics producers (docs/metrics-and-events.md). `ruleId` names the stub whose response produced the event: its
  // `id`, or `<port>:<stubIndex>` when it has none (unique across imposters: no metric has a port label).

  /** A fault fired; `source` is `_svc.fault` for a composed fault block, `fault` for a top-level fault response. */
  onFault?(type: FaultType, ruleId: string, source: string): void;
  /** Latency a fault block injected, in ms. */
  onLatencyInjected?(ruleId: string, ms: number): void;
  /** Status served by an `_svc.fault.error` block. */
  onErrorStatus?(status: number, ruleId: string): void;
  /** One script run (`result`: `ok`, `error` or `timeout`) and its wall-clock duration. */
  onScript?(ruleId: string, result: string, durationMs: number): void;
  /** A failed script run by kind (`compile`, `runtime`, `timeout`, `limit`, `backend`). */
  onScriptError?(ruleId: string, errorType: string): void;
  /** One flow-state operation (`get`, `set`, `incr`, `cas`, ...) and its `result` (`ok`, `miss`, `conflict`, `error`). */
  onFlowStateOp?(operation: string, result: string): void;
  /** Flows that came into being (+n) or expired/cleared (-n) in a store of `backend` (`inmemory`, `redis`). */
  onActiveFlows?(backend: string, delta: number): void;
  /** A proxied request from arrival to answer; `faultApplied` when a fault block also fired. */
  onProxy?(method: string, faultApplied: boolean, durationMs: number): void;
  /** The upstream call alone inside a proxy (status 0 when no HTTP answer came back). */
  onUpstream?(method: string, status: number, durationMs: number): void;
  /** A TCP connection accepted on an imposter listener; `worker` is the accept slot (0 without per-core runtime). */
  onConnection?(port: number, worker: number): void;
  /** An accept failure on an imposter listener (the transport's listener 'error'). */
  onAcceptError?(port: number, error: Error): void;
  /** An imposter listener stopped accepting (an outage it was in ends with it). */
  onListenerClosed?(port: number): void;
}

export type FaultType = 'latency' | 'error' | 'tcp';

/** Fans one call out to every registered observer; a failing observer is isolated. */
export class ObserverSet implements Required<EngineObserver> {
  private readonly list: EngineObserver[] = [];
  hasRequestObservers = false;

  add(observer: EngineObserver): () => void {
    this.list.push(observer);
    this.hasRequestObservers = this.list.some((o) => o.onRequest);
    return () => {
      const at = this.list.indexOf(observer);
      if (at !== -1) this.list.splice(at, 1);
      this.hasRequestObservers = this.list.some((o) => o.onRequest);
    };
  }

  onRequest(port: number, method: string, status: number): void {
    // Per request: no closure per call, unlike the rarer fan-outs.
    for (const o of this.list) {
      if (!o.onRequest) continue;
      try {
        o.onRequest(port, method, status);
      } catch {
        // An observer must never break request serving.
      }
    }
  }

  onRecorded(port: number, index: number, request: RecordedRequest, flowId?: string): void {
    for (const o of this.list) {
      if (!o.onRecorded) continue;
      try {
        o.onRecorded(port, index, request, flowId);
      } catch {
        // An observer must never break request serving.
      }
    }
  }

  wantsRecords(): boolean {
    return this.list.some((o) => o.wantsRecords?.() === true);
  }

  onLifecycle(action: LifecycleAction, port: number | null): void {
    for (const o of this.list) if (o.onLifecycle) safely(() => o.onLifecycle!(action, port));
  }

  onFault(type: FaultType, ruleId: string, source: string): void {
    for (const o of this.list) if (o.onFault) safely(() => o.onFault!(type, ruleId, source));
  }

  onLatencyInjected(ruleId: string, ms: number): void {
    for (const o of this.list) if (o.onLatencyInjected) safely(() => o.onLatencyInjected!(ruleId, ms));
  }

  onErrorStatus(status: number, ruleId: string): void {
    for (const o of this.list) if (o.onErrorStatus) safely(() => o.onErrorStatus!(status, ruleId));
  }

  onScript(ruleId: string, result: string, durationMs: number): void {
    for (const o of this.list) if (o.onScript) safely(() => o.onScript!(ruleId, result, durationMs));
  }

  onScriptError(ruleId: string, errorType: string): void {
    for (const o of this.list) if (o.onScriptError) safely(() => o.onScriptError!(ruleId, errorType));
  }

  onFlowStateOp(operation: string, result: string): void {
    for (const o of this.list) if (o.onFlowStateOp) safely(() => o.onFlowStateOp!(operation, result));
  }

  onActiveFlows(backend: string, delta: number): void {
    for (const o of this.list) if (o.onActiveFlows) safely(() => o.onActiveFlows!(backend, delta));
  }

  onProxy(method: string, faultApplied: boolean, durationMs: number): void {
    for (const o of this.list) if (o.onProxy) safely(() => o.onProxy!(method, faultApplied, durationMs));
  }

  onUpstream(method: string, status: number, durationMs: number): void {
    for (const o of this.list) if (o.onUpstream) safely(() => o.onUpstream!(method, status, durationMs));
  }

  onConnection(port: number, worker: number): void {
    for (const o of this.list) if (o.onConnection) safely(() => o.onConnection!(port, worker));
  }

  onAcceptError(port: number, error: Error): void {
    for (const o of this.list) if (o.onAcceptError) safely(() => o.onAcceptError!(port, error));
  }

  onListenerClosed(port: number): void {
    for (const o of this.list) if (o.onListenerClosed) safely(() => o.onListenerClosed!(port));
  }
}

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // An observer must never break request serving or an admin call.
  }
}

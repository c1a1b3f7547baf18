import { createRequire } from 'node:module';
import type { Server } from 'node:net';
import type * as PromClient from 'prom-client';
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { EngineObserver, FaultType } from '../../engine/manager/index.js';
import { classifyAcceptError } from './accept-errors.js';
import { RequestTally } from './request-tally.js';

/** Listener families of `svc_accept_errors_total` / `svc_accept_error_outage`. */
export type ListenerKind = 'imposter' | 'admin' | 'metrics' | 'proxy';

// prom-client costs ~85 ms to load: required when the first SvcMetrics is built (a metrics port), not at start-up.
const requireModule = createRequire(import.meta.url);
const promClient = (): typeof PromClient => requireModule('prom-client') as typeof PromClient;

const MS_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

/** prom-client children by label values, so repeated label sets skip `labels()` validation. */
class Children<T> {
  private readonly byKey = new Map<string, T>();
  constructor(private readonly make: (values: string[]) => T) {}

  get(...values: string[]): T {
    const key = values.join('\u0000');
    let child = this.byKey.get(key);
    if (child === undefined) {
      child = this.make(values);
      this.byKey.set(key, child);
    }
    return child;
  }
}

/**
 * Exactly the metrics of SPEC §4.13 in a registry of their own (no default Node metrics, nothing
 * global), fed by engine observer calls and by the admin/metrics servers' accept loops.
 */
export class SvcMetrics implements EngineObserver {
  readonly registry = new (promClient().Registry)();
  private readonly requests = new RequestTally();
  /** Accept loops currently in a systemic outage, per listener family (imposter loops by port). */
  private readonly wedged = new Map<ListenerKind, Set<unknown>>();

  private readonly faults = new Children((v) => this.faultsTotal.labels(...v));
  private readonly latency = new Children((v) => this.latencyMs.labels(...v));
  private readonly errorStatus = new Children((v) => this.errorStatusTotal.labels(...v));
  private readonly scripts = new Children((v) => this.scriptMs.labels(...v));
  private readonly scriptErrors = new Children((v) => this.scriptErrorsTotal.labels(...v));
  private readonly flowOps = new Children((v) => this.flowOpsTotal.labels(...v));
  private readonly flows = new Children((v) => this.activeFlows.labels(...v));
  private readonly proxies = new Children((v) => this.proxyMs.labels(...v));
  private readonly upstreams = new Children((v) => this.upstreamMs.labels(...v));
  private readonly accepted = new Children((v) => this.acceptedTotal.labels(...v));
  private readonly acceptErrors = new Children((v) => this.acceptErrorsTotal.labels(...v));
  private readonly outage = new Children((v) => this.outageGauge.labels(...v));

  private readonly faultsTotal: Counter<string>;
  private readonly latencyMs: Histogram<string>;
  private readonly errorStatusTotal: Counter<string>;
  private readonly scriptMs: Histogram<string>;
  private readonly scriptErrorsTotal: Counter<string>;
  private readonly flowOpsTotal: Counter<string>;
  private readonly activeFlows: Gauge<string>;
  private readonly proxyMs: Histogram<string>;
  private readonly upstreamMs: Histogram<string>;
  private readonly acceptedTotal: Counter<string>;
  private readonly acceptErrorsTotal: Counter<string>;
  private readonly outageGauge: Gauge<string>;

  constructor() {
    const { Counter, Gauge, Histogram } = promClient();
    const registers = [this.registry];
    const tally = this.requests;
    // Registered for its collect() hook only: request counts are tallied off prom-client and drained at scrape time.
    new Counter({
      name: 'svc_requests_total', help: 'Imposter requests answered with an HTTP status.', labelNames: ['method', 'status'], registers,
      collect() {
        tally.drain((method, status, delta) => this.labels(method, status).inc(delta));
      },
    });
    this.faultsTotal = new Counter({ name: 'svc_faults_injected_total', help: 'Faults injected.', labelNames: ['type', 'rule_id', 'source'], registers });
    this.latencyMs = new Histogram({ name: 'svc_latency_injected_ms', help: 'Latency injected by faults (ms).', labelNames: ['rule_id'], buckets: MS_BUCKETS, registers });
    this.errorStatusTotal = new Counter({ name: 'svc_error_status_total', help: 'Statuses served by error faults.', labelNames: ['status', 'rule_id'], registers });
    this.scriptMs = new Histogram({ name: 'svc_script_execution_duration_ms', help: 'Script run time (ms).', labelNames: ['rule_id', 'result'], buckets: MS_BUCKETS, registers });
    this.scriptErrorsTotal = new Counter({ name: 'svc_script_errors_total', help: 'Failed script runs.', labelNames: ['rule_id', 'error_type'], registers });
    this.flowOpsTotal = new Counter({ name: 'svc_flow_state_ops_total', help: 'Flow-state operations.', labelNames: ['operation', 'result'], registers });
    this.activeFlows = new Gauge({ name: 'svc_active_flows', help: 'Flows holding state.', labelNames: ['backend'], registers });
    this.proxyMs = new Histogram({ name: 'svc_proxy_request_duration_ms', help: 'Proxied requests, arrival to answer (ms).', labelNames: ['method', 'fault_applied'], buckets: MS_BUCKETS, registers });
    this.upstreamMs = new Histogram({ name: 'svc_upstream_request_duration_ms', help: 'Upstream calls made by proxies (ms).', labelNames: ['method', 'status'], buckets: MS_BUCKETS, registers });
    this.acceptedTotal = new Counter({ name: 'svc_accepted_connections_total', help: 'Connections accepted on imposter listeners.', labelNames: ['worker'], registers });
    this.acceptErrorsTotal = new Counter({ name: 'svc_accept_errors_total', help: 'Failed accepts by listener and class.', labelNames: ['listener', 'class'], registers });
    this.outageGauge = new Gauge({ name: 'svc_accept_error_outage', help: '1 while an accept loop of the listener is in a systemic outage.', labelNames: ['listener'], registers });
    this.accepted.get('0').inc(0);
    this.listenerRunning('imposter');
  }

  /** Puts a listener family's accept-error series on the page at 0 (SPEC: present from startup). */
  private listenerRunning(listener: ListenerKind): void {
    this.acceptErrors.get(listener, 'transient').inc(0);
    this.acceptErrors.get(listener, 'systemic').inc(0);
    this.outage.get(listener).set(this.wedgedSet(listener).size > 0 ? 1 : 0);
  }

  /**
   * Follows a node:net based server (admin, metrics, proxy) for accept errors; fatal ones (the
   * listening socket broke) are not counted for these listeners. Returns the detach function.
   */
  watchServer(server: Server, listener: Exclude<ListenerKind, 'imposter'>): () => void {
    this.listenerRunning(listener);
    const onError = (error: Error): void => {
      const kind = classifyAcceptError(error);
      if (kind === 'fatal') return;
      this.acceptErrors.get(listener, kind).inc();
      if (kind === 'systemic') this.wedge(listener, server);
    };
    const onConnection = (): void => this.release(listener, server);
    const onClose = (): void => this.release(listener, server);
    server.on('error', onError);
    server.on('connection', onConnection);
    server.on('close', onClose);
    return () => {
      server.off('error', onError);
      server.off('connection', onConnection);
      server.off('close', onClose);
      this.release(listener, server);
    };
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private wedgedSet(listener: ListenerKind): Set<unknown> {
    let set = this.wedged.get(listener);
    if (set === undefined) {
      set = new Set();
      this.wedged.set(listener, set);
    }
    return set;
  }

  private wedge(listener: ListenerKind, loop: unknown): void {
    const set = this.wedgedSet(listener);
    set.add(loop);
    this.outage.get(listener).set(1);
  }

  private release(listener: ListenerKind, loop: unknown): void {
    const set = this.wedgedSet(listener);
    if (!set.delete(loop)) return;
    this.outage.get(listener).set(set.size > 0 ? 1 : 0);
  }

  // ---- EngineObserver ----

  onRequest(_port: number, method: string, status: number): void {
    this.requests.add(method, status);
  }

  onFault(type: FaultType, ruleId: string, source: string): void {
    this.faults.get(type, ruleId, source).inc();
  }

  onLatencyInjected(ruleId: string, ms: number): void {
    this.latency.get(ruleId).observe(ms);
  }

  onErrorStatus(status: number, ruleId: string): void {
    this.errorStatus.get(String(status), ruleId).inc();
  }

  onScript(ruleId: string, result: string, durationMs: number): void {
    this.scripts.get(ruleId, result).observe(durationMs);
  }

  onScriptError(ruleId: string, errorType: string): void {
    this.scriptErrors.get(ruleId, errorType).inc();
  }

  onFlowStateOp(operation: string, result: string): void {
    this.flowOps.get(operation, result).inc();
  }

  onActiveFlows(backend: string, delta: number): void {
    this.flows.get(backend).inc(delta);
  }

  onProxy(method: string, faultApplied: boolean, durationMs: number): void {
    this.proxies.get(method, String(faultApplied)).observe(durationMs);
  }

  onUpstream(method: string, status: number, durationMs: number): void {
    this.upstreams.get(method, String(status)).observe(durationMs);
  }

  onConnection(port: number, worker: number): void {
    this.accepted.get(String(worker)).inc();
    this.release('imposter', port);
  }

  /** Imposter loops count a broken listening socket as systemic (it stays wedged until the loop ends). */
  onAcceptError(port: number, error: Error): void {
    const kind = classifyAcceptError(error) === 'transient' ? 'transient' : 'systemic';
    this.acceptErrors.get('imposter', kind).inc();
    if (kind === 'systemic') this.wedge('imposter', port);
  }

  onListenerClosed(port: number): void {
    this.release('imposter', port);
  }
}

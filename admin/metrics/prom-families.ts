import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AcceptTally, RequestTally } from './request-tally.js';

// prom-client (with @opentelemetry/api) costs ~45 ms of CPU to load: required when the families are built,
// which SvcMetrics puts off until the first scrape.
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

/** The prom-client families of docs/metrics-and-events.md in a registry of their own (no default Node metrics, nothing global). */
export class PromFamilies {
  readonly registry: Registry;

  readonly faults = new Children((v) => this.faultsTotal.labels(...v));
  readonly latency = new Children((v) => this.latencyMs.labels(...v));
  readonly errorStatus = new Children((v) => this.errorStatusTotal.labels(...v));
  readonly scripts = new Children((v) => this.scriptMs.labels(...v));
  readonly scriptErrors = new Children((v) => this.scriptErrorsTotal.labels(...v));
  readonly flowOps = new Children((v) => this.flowOpsTotal.labels(...v));
  readonly flows = new Children((v) => this.activeFlows.labels(...v));
  readonly proxies = new Children((v) => this.proxyMs.labels(...v));
  readonly upstreams = new Children((v) => this.upstreamMs.labels(...v));
  readonly accepted = new Children((v) => this.acceptedTotal.labels(...v));
  readonly acceptErrors = new Children((v) => this.acceptErrorsTotal.labels(...v));
  readonly outage = new Children((v) => this.outageGauge.labels(...v));

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

  constructor(tally: RequestTally, accepts: AcceptTally) {
    const { Counter, Gauge, Histogram, Registry } = promClient();
    this.registry = new Registry();
    const registers = [this.registry];
    // Registered for its collect() hook only: request counts are tallied off prom-client and drained at scrape time.
    new Counter({
      name: 'svc_requests_total',
      help: 'Imposter requests answered with an HTTP status.',
      labelNames: ['method', 'status'],
      registers,
      collect() {
        tally.drain((method, status, delta) => this.labels(method, status).inc(delta));
      },
    });
    this.faultsTotal = new Counter({ name: 'svc_faults_injected_total', help: 'Faults injected.', labelNames: ['type', 'rule_id', 'source'], registers });
    this.latencyMs = new Histogram({
      name: 'svc_latency_injected_ms',
      help: 'Latency injected by faults (ms).',
      labelNames: ['rule_id'],
      buckets: MS_BUCKETS,
      registers,
    });
    this.errorStatusTotal = new Counter({
      name: 'svc_error_status_total',
      help: 'Statuses served by error faults.',
      labelNames: ['status', 'rule_id'],
      registers,
    });
    this.scriptMs = new Histogram({
      name: 'svc_script_execution_duration_ms',
      help: 'Script run time (ms).',
      labelNames: ['rule_id', 'result'],
      buckets: MS_BUCKETS,
      registers,
    });
    this.scriptErrorsTotal = new Counter({ name: 'svc_script_errors_total', help: 'Failed script runs.', labelNames: ['rule_id', 'error_type'], registers });
    this.flowOpsTotal = new Counter({ name: 'svc_flow_state_ops_total', help: 'Flow-state operations.', labelNames: ['operation', 'result'], registers });
    this.activeFlows = new Gauge({ name: 'svc_active_flows', help: 'Flows holding state.', labelNames: ['backend'], registers });
    this.proxyMs = new Histogram({
      name: 'svc_proxy_request_duration_ms',
      help: 'Proxied requests, arrival to answer (ms).',
      labelNames: ['method', 'fault_applied'],
      buckets: MS_BUCKETS,
      registers,
    });
    this.upstreamMs = new Histogram({
      name: 'svc_upstream_request_duration_ms',
      help: 'Upstream calls made by proxies (ms).',
      labelNames: ['method', 'status'],
      buckets: MS_BUCKETS,
      registers,
    });
    this.acceptedTotal = new Counter({
      name: 'svc_accepted_connections_total',
      help: 'Connections accepted on imposter listeners.',
      labelNames: ['worker'],
      registers,
      // Accepts are tallied off prom-client and drained at scrape time, like request counts.
      collect() {
        accepts.drain((slot, delta) => this.labels(slot).inc(delta));
      },
    });
    this.acceptErrorsTotal = new Counter({
      name: 'svc_accept_errors_total',
      help: 'Failed accepts by listener and class.',
      labelNames: ['listener', 'class'],
      registers,
    });
    this.outageGauge = new Gauge({
      name: 'svc_accept_error_outage',
      help: '1 while an accept loop of the listener is in a systemic outage.',
      labelNames: ['listener'],
      registers,
    });
    this.accepted.get('0').inc(0);
  }
}

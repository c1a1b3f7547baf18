export { startMetricsServer, type MetricsServerOptions, type RunningMetrics } from './server.js';
export { SvcMetrics, type ListenerKind } from './svc-metrics.js';
export { classifyAcceptError, type AcceptErrorClass } from './accept-errors.js';

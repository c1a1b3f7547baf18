export { createAdminServer, listenAdmin, type AdminServer, type AdminServerOptions } from './server.js';
export { Router, type AdminRequest, type AdminReply, type RouteHandler } from './http/index.js';
export type { AdminSettings } from './http/index.js';
export { startMetricsServer, SvcMetrics, classifyAcceptError, type MetricsServerOptions, type RunningMetrics } from './metrics/index.js';
export { EventHub, type EventHubOptions, type EventHubStats } from './events/index.js';
export { InterceptControl, imposterProtocols, type InterceptControlOptions, type InterceptStarted } from './intercept/index.js';
export { interceptRoutes } from './routes/index.js';

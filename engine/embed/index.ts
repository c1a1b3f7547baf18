export { servePlanes, type PlanesOptions, type RunningPlanes } from './planes.js';
export { serveAdmin, parseServeAdminOptions, type ServeAdminHost, type ServeAdminOptions, type ServedAdmin } from './serve-admin.js';
export { AdminApiServer, type RunningAdminApi } from './admin-api.js';
export { bindMetricsServer, runMetricsServer, type RunningMetricsPlane } from './metrics-plane.js';
export { type ConfigSource } from './config-source.js';
export { PlaneLifecycle, parseListenAddr, type ListenAddr, type SocketAddr } from './lifecycle.js';
export { watchAcceptLoop } from './accept-loop.js';
export { ServerBuilder, StartupFailure, type RunningServer } from './server-builder.js';
export { applyRcfileDefaults, DEFAULT_PIDFILE, stopServer, stopForRestart, saveImposters, type AdminTarget } from '../../tools/cli/index.js';

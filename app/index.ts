export { servePlanes, type PlanesOptions, type RunningPlanes } from './planes.js';
export { serveAdmin, parseServeAdminOptions, type ServeAdminHost, type ServeAdminOptions, type ServedAdmin } from './serve-admin.js';
export { AdminApiServer, type RunningAdminApi } from './admin-api.js';
export { bindMetricsServer, runMetricsServer, type RunningMetrics } from './metrics-plane.js';
export type { ConfigSource } from './config-source.js';
export { PlaneLifecycle } from './lifecycle.js';
export { parseListenAddr, type ListenAddr, type SocketAddr } from './listen-addr.js';
export { watchAcceptLoop } from './accept-loop.js';
export { ServerBuilder, type RunningServer } from './server-builder.js';
// The failures an embedding host or the CLI tells apart (the model room owns the error hierarchy).
export { StartupFailure, UsageError } from '../engine/model/index.js';
// Server options and process helpers: the CLI (tools/cli) parses argv into these options, embedding hosts build
// them (`{ ...defaultCliOptions(), port: 0 }`) and call the helpers directly.
export {
  defaultCliOptions,
  DEFAULT_PIDFILE,
  DEFAULT_SAVEFILE,
  type CliOptions,
  stopServer,
  stopForRestart,
  saveImposters,
  replayImposters,
  checkHealth,
  type AdminTarget,
  writePidFile,
  readPidFile,
  removeOwnPidFile,
  processAlive,
  HeapReclaim,
  type ReclaimReport,
} from './process/index.js';
export { VERSION } from '../engine/version/index.js';
// A fleet (issue 20) for a manager an embedding host makes itself: `new ImposterManager({ fleet: new RedisFleet(...) })`.
export { RedisFleet, fleetUrlProblem, DEFAULT_FLEET_PREFIX, type FleetOptions, type FleetNode, type FleetStatus } from '../engine/fleet/index.js';

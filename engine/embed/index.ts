export { servePlanes, type PlanesOptions, type RunningPlanes } from './planes.js';
export { serveAdmin, parseServeAdminOptions, type ServeAdminHost, type ServeAdminOptions, type ServedAdmin } from './serve-admin.js';

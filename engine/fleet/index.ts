export { RedisFleet, type FleetOptions, type FleetNode, type FleetStatus } from './redis-fleet.js';
export { fleetUrlProblem, DEFAULT_FLEET_PREFIX } from './fleet-url.js';

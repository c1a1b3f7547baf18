export { parseRoutes, type Route, type HeaderClause } from './route-table.js';
export { RouteMatcher, prefixMatches, hostOf, pathOf, type RoutedRequest } from './route-matcher.js';
export { parseListenAddress, formatListenAddress, type ListenAddress } from '../../engine/transport/index.js';
export { startFrontDoor, FrontDoorRoutes, type FrontDoor, type FrontDoorOptions } from './front-door.js';

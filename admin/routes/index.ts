export { imposterRoutes } from './imposters.js';
export { stubRoutes } from './stubs.js';
export { requestRoutes } from './requests.js';
export { scenarioRoutes } from './scenarios.js';
export { spaceRoutes } from './spaces.js';
export { flowStateRoutes } from './flow-state.js';
export { miscRoutes } from './misc.js';
export { reloadRoutes, type Reloader } from './reload.js';
export { interceptRoutes } from './intercept.js';

export { dashboardResponder, dashboardRoutes } from './routes.js';
export { prefersHtml } from './negotiation.js';

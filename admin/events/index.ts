export { EventHub, type EventHubOptions, type EventHubStats } from './event-hub.js';
export { eventRoutes } from './routes.js';
export type { BufferLimits, EventFilter, SubscriberStats } from './sse-subscriber.js';

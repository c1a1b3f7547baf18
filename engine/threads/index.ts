export { workerSpawner } from './spawn.js';
export { ThreadHost, type ThreadHostOptions } from './host.js';
export { hostedThread, type HostedThread } from './hosted.js';
export { ArrayOutbox, PerTurn, type BatchTiming, type Outbox } from './per-turn.js';
export { LinkBoard, type LinkOffer } from './links.js';
export { SharedCount, SharedQuiet, WaitingThreads } from './shared-count.js';
export { memoryReducingGc } from './gc.js';
export { CallTable } from './call-table.js';

import type { Logger } from '../log/index.js';
import type { FlowStore } from './flow-store.js';
import type { FlowStoreMetrics } from './flow-metrics.js';
import { DEFAULT_TTL_SECONDS, flowStateSettings, stubsNeedFlowStore } from './flow-settings.js';
import { MemoryFlowStore } from './memory-flow-store.js';
import { NoopFlowStore } from './noop-flow-store.js';
import { RedisFlowStore } from './redis-flow-store.js';

/** The implicit in-memory store of docs/flow-state.md rule 2, announced by a warning at target `svc::script`. */
export function implicitFlowStore(log: Logger, port: number, metrics?: FlowStoreMetrics): FlowStore {
  log.warn(`svc::script imposter ${port}: script or scenario stubs without _svc.flowState; using an in-memory flow store (ttlSeconds ${DEFAULT_TTL_SECONDS})`);
  return new MemoryFlowStore({ ttlSeconds: DEFAULT_TTL_SECONDS, metrics });
}

/**
 * The store an imposter starts with, synchronously: its explicit `inmemory` store, the implicit
 * in-memory one (rule 2), or the noop store (rule 3). A `redis` config needs `openRemoteFlowStore` first.
 */
export function localFlowStore(config: Record<string, unknown>, stubs: readonly unknown[], port: number, log: Logger, metrics?: FlowStoreMetrics): FlowStore {
  const settings = flowStateSettings(config);
  if (settings?.backend === 'redis') throw new Error('a redis flow store must be opened with openRemoteFlowStore');
  if (settings) return new MemoryFlowStore({ ttlSeconds: settings.ttlSeconds, metrics });
  if (stubsNeedFlowStore(stubs)) return implicitFlowStore(log, port, metrics);
  return new NoopFlowStore();
}

/**
 * The connected store of a `redis` config (undefined for any other): rejects when the server cannot
 * be reached, which fails imposter creation (rule 1).
 */
export async function openRemoteFlowStore(config: Record<string, unknown>, metrics?: FlowStoreMetrics): Promise<FlowStore | undefined> {
  const settings = flowStateSettings(config);
  if (settings?.backend !== 'redis' || !settings.redis) return undefined;
  return RedisFlowStore.open({ ...settings.redis, ttlSeconds: settings.ttlSeconds, metrics });
}

import type { Logger } from '../log/index.js';
import type { FlowStore } from './flow-store.js';
import { DEFAULT_TTL_SECONDS, flowStateSettings, needsImplicitFlowStore } from './flow-settings.js';
import { MemoryFlowStore } from './memory-flow-store.js';
import { NoopFlowStore } from './noop-flow-store.js';

/** SPEC §2.8 rule 2's warning (target `svc::script`), logged when an implicit store is made. */
export function warnImplicitFlowStore(log: Logger, port: number): void {
  log.warn(`svc::script imposter ${port}: script or scenario stubs without _svc.flowState; using an in-memory flow store (ttlSeconds ${DEFAULT_TTL_SECONDS})`);
}

/**
 * The store an imposter gets without a remote backend: its explicit `inmemory` store, the implicit
 * in-memory one (rule 2, with the warning), or the noop store (rule 3). A `redis` config is opened
 * elsewhere (asynchronously); here it is an error.
 */
export function localFlowStore(config: Record<string, unknown>, stubs: readonly unknown[], port: number, log: Logger): FlowStore {
  const settings = flowStateSettings(config);
  if (settings?.backend === 'redis') throw new Error('a redis flow store must be opened with openFlowStore');
  if (settings) return new MemoryFlowStore({ ttlSeconds: settings.ttlSeconds });
  if (needsImplicitFlowStore({ _svc: config._svc, stubs })) {
    warnImplicitFlowStore(log, port);
    return new MemoryFlowStore({ ttlSeconds: DEFAULT_TTL_SECONDS });
  }
  return new NoopFlowStore();
}

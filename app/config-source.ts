import { resolve } from 'node:path';
import { ConfigSources, DataDirStore } from '../engine/config/index.js';
import type { Logger } from '../engine/log/index.js';
import type { ImposterManager } from '../engine/manager/index.js';

/** The startup source behind `POST /admin/reload`: a config file or a data directory (docs/embedding.md). */
export type ConfigSource = { kind: 'file'; path: string; noParse: boolean } | { kind: 'dir'; path: string };

/**
 * The reload source over `manager`. A data directory needs the manager's persistence hooks (the file
 * goes before the imposter, every change is written before it answers): it is installed here when the manager has none, else refused.
 */
export function configSourcesFor(manager: ImposterManager, source: ConfigSource, log: Logger): ConfigSources {
  if (source.kind === 'file') return new ConfigSources(manager, { configFile: resolve(source.path), noParse: source.noParse });
  if (manager.hasPersistence) throw new Error('a data directory source needs a manager without its own persistence hooks');
  const store = new DataDirStore(resolve(source.path), log);
  manager.installPersistence(store);
  store.attach(manager);
  return new ConfigSources(manager, { noParse: false, store });
}

import type { ImposterManager } from '../engine/manager/index.js';

const IMPOSTER_PATH = /^\/imposters(?:\/(\d+))?(?:\/|$)/;

/**
 * A fleet (docs/runtime.md): before an admin call reads an imposter, its journal and numberOfRequests
 * are brought up to what every node recorded, so a request any node answered is seen here.
 */
export async function freshJournals(manager: ImposterManager, path: string): Promise<void> {
  if (!manager.options.fleet) return;
  const found = IMPOSTER_PATH.exec(path);
  if (found) await manager.syncJournals(found[1] === undefined ? undefined : Number(found[1]));
}

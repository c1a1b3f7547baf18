import type { Imposter } from './imposter.js';

/**
 * What the manager needs of a fleet (engine/fleet implements it; defined here so the manager never
 * imports it). Writes the fleet itself applies (`replicate`) pass neither gate nor commit.
 */
export interface ConfigReplica {
  /** Before an admin write runs: throws (a 503) when the write could not be shared now, so nothing changes. */
  admit(): void;
  /**
   * After an admin write: the ports whose config it changed ('all': the whole set, e.g. DELETE /imposters).
   * `apply` (as in `replicate`) lets a fleet that cannot share the write put those ports back before it throws.
   */
  committed(ports: readonly number[] | 'all', apply: ApplyShared): Promise<void>;
  /** Loads the shared set into `manager` and follows its changes from then on. */
  attach(manager: ReplicaTarget): Promise<void>;
  /** `GET /fleet`: the nodes and the versions they run. */
  status(): Promise<object>;
  close(): Promise<void>;
}

/** Sets one port to a shared config, or deletes it (undefined). */
export type ApplyShared = (port: number, shared: SharedImposter | undefined) => Promise<void>;

/** One imposter as a fleet shares it: its replayable config and whether it is enabled. */
export interface SharedImposter {
  config: Record<string, unknown>;
  enabled: boolean;
}

/** What a fleet drives of the manager (ImposterManager is one): the running set, queued replays, the shared form. */
export interface ReplicaTarget {
  list(): Imposter[];
  replicate<T>(work: (apply: ApplyShared) => Promise<T>): Promise<T>;
  sharedImposter(port: number): SharedImposter | undefined;
}

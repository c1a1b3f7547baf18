import type { FlowStore } from '../state/index.js';
import type { Imposter } from './imposter.js';
import type { SharedJournal } from './shared-journal.js';

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
  committed(ports: readonly number[] | 'all', apply: ApplyShared, options?: CommitOptions): Promise<void>;
  /** Loads the shared set into `manager` and follows its changes from then on. */
  attach(manager: ReplicaTarget): Promise<void>;
  /** `GET /fleet`: the nodes and the versions they run. */
  status(): Promise<object>;
  /** The shared journal of the imposter about to be bound on `port` (docs/runtime.md). */
  journalOf?(port: number): SharedJournal;
  /** The fleet-wide flow store (scenarios, spaces, flow state) of an imposter that needs one; undefined: its own. */
  flowStoreOf?(port: number, config: Record<string, unknown>, stubs: readonly unknown[]): Promise<FlowStore | undefined>;
  /** proxyOnce fleet-wide: who records a (proxy response, predicates) pair for the imposter on `port`. */
  recordingClaims?(port: number): RecordingClaims;
  close(): Promise<void>;
}

export interface CommitOptions {
  /**
   * A proxy recording: shared only if no other node changed the port since this node applied it (else
   * this node applies the newer config and the commit throws StaleWrite: the caller records again on it).
   */
  ifUnchanged?: boolean;
}

/** A conditional commit (CommitOptions.ifUnchanged) lost to another node's write; nothing was shared. */
export class StaleWrite extends Error {}

/**
 * proxyOnce across a fleet (issue 20): one node at a time holds the claim of a (proxy response,
 * predicates) key, calls the upstream and shares the recorded stub; the others wait for it through the
 * change feed. A claim expires when its node stops renewing it (killed): another node then claims it.
 */
export interface RecordingClaims {
  /**
   * 'claimed': this node records (then `release`s); 'busy': another node holds the claim, or the fleet has
   * a change to this imposter this node has not applied yet (wait for `changed`, then look again);
   * 'unshared': Redis is unreachable, nothing can be recorded fleet-wide.
   */
  claim(key: string): Promise<'claimed' | 'busy' | 'unshared'>;
  /** Gives the claim up (the recording is shared, or none was made). */
  release(key: string): Promise<void>;
  /** Resolves when this node has applied a fleet change to the imposter, or after `ms` at the latest. */
  changed(ms: number): Promise<void>;
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

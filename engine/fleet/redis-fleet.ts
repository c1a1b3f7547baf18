import type { Redis } from 'ioredis';
import {
  StaleWrite,
  type ApplyShared,
  type CommitOptions,
  type ConfigReplica,
  type ImposterManager,
  type RecordingClaims,
  type SharedImposter,
  type SharedJournal,
} from '../manager/index.js';
import type { Logger } from '../log/index.js';
import { errors, errorText, isObject } from '../model/index.js';
import { DEFAULT_TTL_SECONDS, flowStateSettings, RedisFlowStore, stubsNeedFlowStore, type FlowStore } from '../state/index.js';
import { APPEND_SCRIPT, CLAIM_SCRIPT, CLEAR_SCRIPT, COMMIT_SCRIPT, RENEW_CLAIM_SCRIPT } from './fleet-scripts.js';
import { FleetClaims, type ClaimCommands } from './fleet-claims.js';
import { FleetJournal, type JournalCommands } from './fleet-journal.js';
import { DEFAULT_FLEET_PREFIX } from './fleet-url.js';

export interface FleetOptions {
  /** `redis://HOST:PORT[/DB]` (fleetUrlProblem checks it). */
  url: string;
  /** Key and channel prefix: nodes with the same Redis and prefix serve the same imposters. */
  prefix?: string;
  /** Unique per node; `GET /fleet` lists it. */
  nodeId: string;
  /** What `GET /fleet` shows as the node's address (its admin host:port). */
  address: string;
  log: Logger;
  /** How often the node's heartbeat key is written; it expires after three of these. */
  heartbeatMs?: number;
}

export interface FleetNode {
  id: string;
  address: string;
  /** ISO time of its last heartbeat. */
  heartbeat: string;
  /** The highest fleet config version the node has applied. */
  version: number;
}

export interface FleetStatus {
  node: string;
  redis: 'up' | 'down';
  version: number;
  nodes: FleetNode[];
}

const CONNECT_TIMEOUT_MS = 2_000;
const COMMAND_TIMEOUT_MS = 1_000;
const RESYNC_RETRY_MS = 250;
/** How soon a new SSE listener starts hearing other nodes' records. */
const HEAR_CHECK_MS = 50;

interface StoredEntry extends SharedImposter {
  version: number;
}

function parseEntry(raw: string): StoredEntry | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    if (isObject(value) && typeof value.version === 'number' && isObject(value.config)) {
      return { version: value.version, config: value.config, enabled: value.enabled !== false };
    }
  } catch {
    // A foreign or damaged entry is skipped (logged by the caller), never applied.
  }
  return undefined;
}

/**
 * The fleet (issue 20): every node's admin writes go to one Redis hash, each imposter's config stored
 * whole with a fleet-wide version, and a pub/sub notice tells the other nodes which ports to fetch and
 * apply. A node loads the whole set before it serves and again after every reconnect (notices sent while
 * it was away are lost, the hash is not). While Redis is unreachable, admin writes are refused (503) and
 * the node keeps serving what it applied last.
 */
export class RedisFleet implements ConfigReplica {
  private readonly keys: { prefix: string; imposters: string; version: string; channel: string; records: string; nodes: string; node: (id: string) => string };
  private writer: (Redis & JournalCommands & ClaimCommands) | undefined;
  private subscriber: Redis | undefined;
  private manager: ImposterManager | undefined;
  /** Per port, the fleet version this node runs. */
  private readonly applied = new Map<number, number>();
  /** Per port, the config Redis held when this node last read or wrote it: what a write Redis refused is undone to. */
  private readonly known = new Map<number, SharedImposter>();
  private version = 0;
  /** False from a disconnect until the set has been loaded again: writes are refused meanwhile. */
  private synced = false;
  private feed: Promise<void> = Promise.resolve();
  private heartbeat: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private hearing: NodeJS.Timeout | undefined;
  private subscribedToRecords = false;
  private closed = false;
  /** Each imposter's shared journal on this node, by port (other nodes' record notices reach them). */
  private readonly journals = new Map<number, FleetJournal>();
  /** Ports whose imposter this node created anew since its last commit: their journals start over. */
  private readonly fresh = new Set<number>();
  /** True while this node applies what another node wrote (those imposters are not new to the fleet). */
  private applying = false;
  /** Each imposter's proxyOnce claims on this node, by port. */
  private readonly claims = new Map<number, FleetClaims>();
  /** proxyOnce waiters to wake when this node applies a change to their port. */
  private readonly appliedWaiters = new Map<number, Set<() => void>>();

  constructor(private readonly options: FleetOptions) {
    const prefix = options.prefix ?? DEFAULT_FLEET_PREFIX;
    this.keys = {
      prefix,
      records: `${prefix}records`,
      imposters: `${prefix}imposters`,
      version: `${prefix}version`,
      channel: `${prefix}changes`,
      nodes: `${prefix}nodes`,
      node: (id) => `${prefix}node:${id}`,
    };
  }

  get nodeId(): string {
    return this.options.nodeId;
  }

  async attach(manager: ImposterManager): Promise<void> {
    this.manager = manager;
    // Loaded here, not at start-up: ioredis costs ~200 ms of CPU and only fleets and redis flow stores need it.
    const { Redis } = await import('ioredis');
    let opened = false;
    const connect = (offlineQueue: boolean) => {
      const connection = new Redis(this.options.url, {
        lazyConnect: true,
        enableOfflineQueue: offlineQueue,
        maxRetriesPerRequest: offlineQueue ? null : 0,
        commandTimeout: offlineQueue ? undefined : COMMAND_TIMEOUT_MS,
        connectTimeout: CONNECT_TIMEOUT_MS,
        // No retries while joining (start-up fails); afterwards reconnect with backoff until Redis is back.
        retryStrategy: (times) => (opened ? Math.min(times * 100, 1_000) : null),
      });
      connection.on('error', () => undefined);
      return connection;
    };
    const writer = connect(false) as Redis & JournalCommands & ClaimCommands;
    writer.defineCommand('svcJournalAppend', { numberOfKeys: 2, lua: APPEND_SCRIPT });
    writer.defineCommand('svcJournalClear', { numberOfKeys: 2, lua: CLEAR_SCRIPT });
    writer.defineCommand('svcClaim', { numberOfKeys: 2, lua: CLAIM_SCRIPT });
    writer.defineCommand('svcClaimRenew', { numberOfKeys: 1, lua: RENEW_CLAIM_SCRIPT });
    // Subscribed connections queue their resubscription while reconnecting.
    const subscriber = connect(true);
    this.writer = writer;
    this.subscriber = subscriber;
    try {
      await Promise.all([writer.connect(), subscriber.connect()]);
      await subscriber.subscribe(this.keys.channel);
      subscriber.on('message', (channel: string, message: string) => {
        if (channel === this.keys.records) this.onRecords(message);
        else this.onNotice(message);
      });
      await this.resync();
    } catch (err) {
      writer.disconnect();
      subscriber.disconnect();
      throw new Error(`cannot join the fleet at ${this.options.url}: ${errorText(err)}`);
    }
    opened = true;
    const lost = () => {
      if (!this.synced) return;
      this.synced = false;
      this.options.log.warn(`fleet: lost redis at ${this.options.url}; serving the last applied config, admin writes refused`);
    };
    for (const connection of [writer, subscriber]) {
      connection.on('close', lost);
      // Soon after, not at once: a reconnected subscriber resubscribes just after 'ready'.
      connection.on('ready', () => this.scheduleResync(RESYNC_RETRY_MS));
    }
    this.options.log.info(`fleet: node ${this.options.nodeId} joined at version ${this.version} (${this.applied.size} imposter(s))`);
    this.beat();
    this.heartbeat = setInterval(() => this.beat(), this.options.heartbeatMs ?? 1_000);
    this.heartbeat.unref();
    this.hearing = setInterval(() => this.hearRecords(), HEAR_CHECK_MS);
    this.hearing.unref();
  }

  admit(): void {
    if (!this.synced || this.writer?.status !== 'ready') {
      throw errors.serviceUnavailable('fleet: redis is unreachable, so the write was not applied on any node');
    }
  }

  journalOf(port: number): SharedJournal {
    const journal = new FleetJournal({
      port,
      node: this.options.nodeId,
      prefix: this.keys.prefix,
      channel: this.keys.records,
      writer: () => (this.writer?.status === 'ready' ? this.writer : undefined),
      log: this.options.log,
    });
    this.journals.get(port)?.close();
    this.journals.set(port, journal);
    if (!this.applying) this.fresh.add(port);
    return journal;
  }

  recordingClaims(port: number): RecordingClaims {
    const claims = new FleetClaims({
      port,
      prefix: this.keys.prefix,
      imposters: this.keys.imposters,
      node: this.options.nodeId,
      writer: () => (this.synced && this.writer?.status === 'ready' ? this.writer : undefined),
      applied: () => this.applied.get(port) ?? 0,
      changed: (ms) => this.appliedChange(port, ms),
    });
    this.claims.get(port)?.close();
    this.claims.set(port, claims);
    return claims;
  }

  /** Resolves when this node applies a change to `port` (appliedOn), or after `ms`. */
  private appliedChange(port: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let waiters = this.appliedWaiters.get(port);
      if (!waiters) {
        waiters = new Set();
        this.appliedWaiters.set(port, waiters);
      }
      const set = waiters;
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
    });
  }

  private appliedOn(port: number): void {
    const waiters = this.appliedWaiters.get(port);
    if (!waiters) return;
    this.appliedWaiters.delete(port);
    for (const wake of waiters) wake();
  }

  /**
   * Scenario states, spaces and flow state of a fleet's imposter live on the fleet's Redis (when the
   * imposter uses any, or asks for an in-memory store): every node moves the same scenario.
   */
  async flowStoreOf(port: number, config: Record<string, unknown>, stubs: readonly unknown[]): Promise<FlowStore | undefined> {
    const writer = this.writer;
    const settings = flowStateSettings(config);
    if (!writer || port === 0 || settings?.backend === 'redis' || (!settings && !stubsNeedFlowStore(stubs))) return undefined;
    try {
      const epoch = (await writer.get(`${this.keys.prefix}flowepoch:${port}`)) ?? '0';
      return await RedisFlowStore.open({
        url: this.options.url,
        poolSize: 1,
        keyPrefix: `${this.keys.prefix}flow:${port}:${epoch}:`,
        ttlSeconds: settings?.ttlSeconds ?? DEFAULT_TTL_SECONDS,
      });
    } catch (err) {
      this.options.log.warn(`fleet: imposter ${port} keeps its flow state on this node (${errorText(err)})`);
      return undefined;
    }
  }

  /**
   * Other nodes' record notices are subscribed to only while someone here listens for records (SSE):
   * a node nobody watches pays nothing for the others' traffic.
   */
  private hearRecords(): void {
    const subscriber = this.subscriber;
    if (subscriber?.status !== 'ready') return;
    let want = false;
    for (const journal of this.journals.values()) {
      want = journal.listening();
      break;
    }
    if (want === this.subscribedToRecords) return;
    this.subscribedToRecords = want;
    (want ? subscriber.subscribe(this.keys.records) : subscriber.unsubscribe(this.keys.records)).catch(() => {
      this.subscribedToRecords = !want;
    });
  }

  /** A notice `<port> <first> <n> <node>`: records another node stored, for this node's SSE listeners. */
  private onRecords(message: string): void {
    const [port, first, n, node] = message.split(' ');
    if (node === this.options.nodeId) return;
    void this.journals.get(Number(port))?.foreign(Number(first), Number(n));
  }

  async committed(ports: readonly number[] | 'all', apply: ApplyShared, options?: CommitOptions): Promise<void> {
    const manager = this.manager;
    const writer = this.writer;
    if (!manager || !writer) return;
    const whole = ports === 'all';
    const changed = whole ? manager.list().map((imposter) => imposter.port) : ports;
    // A proxy recording changes one imposter; it is shared only on top of the version this node runs.
    const only = !whole && options?.ifUnchanged && changed.length === 1 ? changed[0] : undefined;
    const mode = whole ? '1' : only === undefined ? '0' : `if:${this.applied.get(only) ?? 0}`;
    const args: Array<string | number> = [this.keys.channel, mode, this.keys.prefix];
    const entries = new Map<number, SharedImposter | undefined>();
    for (const port of changed) {
      const shared = manager.sharedImposter(port);
      entries.set(port, shared);
      args.push(port, shared ? JSON.stringify(shared) : '', this.fresh.has(port) ? '1' : '0');
    }
    this.fresh.clear();
    let version: number;
    try {
      version = Number(await writer.eval(COMMIT_SCRIPT, 2, this.keys.imposters, this.keys.version, ...args));
    } catch (err) {
      // Redis went away under the write: undo it here (nothing changed), and resync once Redis answers.
      this.synced = false;
      this.scheduleResync(RESYNC_RETRY_MS);
      const undo = whole ? new Set([...changed, ...this.known.keys()]) : changed;
      await this.applyingShared(async () => {
        for (const port of undo) {
          await apply(port, this.known.get(port)).catch((failure: unknown) => {
            this.applied.delete(port);
            this.options.log.error(`fleet: cannot undo the unshared write to imposter ${port}: ${errorText(failure)}`);
          });
        }
      });
      throw errors.serviceUnavailable(`fleet: redis is unreachable (${errorText(err)}), so the write was not applied on any node`);
    }
    if (version === -1 && only !== undefined) {
      // Another node changed the imposter meanwhile: run its version here (the recording goes with it).
      const raw = await writer.hget(this.keys.imposters, String(only)).catch(() => null);
      await this.applyingShared(() => this.applyOne(apply, only, raw ?? undefined, true));
      throw new StaleWrite(`imposter ${only} changed on another node meanwhile`);
    }
    if (whole) {
      this.applied.clear();
      this.known.clear();
    }
    for (const [port, shared] of entries) {
      if (shared) {
        this.applied.set(port, version);
        this.known.set(port, shared);
      } else {
        this.applied.delete(port);
        this.known.delete(port);
      }
    }
    this.version = Math.max(this.version, version);
  }

  /** A notice `<version> <ports>`: fetch those ports and apply what is newer than what runs here. */
  private onNotice(message: string): void {
    const [versionText, which = ''] = message.split(' ');
    const version = Number(versionText);
    this.feed = this.feed
      .then(() => (which === '*' ? this.resync() : this.fetchPorts(which.split(',').filter(Boolean).map(Number))))
      .then(
        () => {
          // Skipped while unsynced: the resync to come brings it, and the heartbeat sees the version gap.
          if (this.synced) this.version = Math.max(this.version, version);
        },
        (err: unknown) => {
          this.options.log.warn(`fleet: applying change ${version} failed (${errorText(err)}); resyncing`);
          this.scheduleResync(RESYNC_RETRY_MS);
        },
      );
  }

  private async fetchPorts(ports: number[]): Promise<void> {
    const manager = this.manager;
    const writer = this.writer;
    if (!manager || !writer || ports.length === 0 || !this.synced) return;
    await manager.replicate(async (apply) => {
      // Read in the queue: no local write can land between the read and the apply.
      const raws = await writer.hmget(this.keys.imposters, ...ports.map(String));
      await this.applyingShared(async () => {
        for (const [i, port] of ports.entries()) await this.applyOne(apply, port, raws[i] ?? undefined);
      });
    });
  }

  /** Applies one stored entry unless this node runs that version already (`always`: its local copy changed unshared). */
  private async applyOne(apply: ApplyShared, port: number, raw: string | undefined, always = false): Promise<void> {
    try {
      await this.applyEntry(apply, port, raw, always);
    } finally {
      this.appliedOn(port);
    }
  }

  private async applyEntry(apply: ApplyShared, port: number, raw: string | undefined, always: boolean): Promise<void> {
    if (raw === undefined) {
      this.applied.delete(port);
      this.known.delete(port);
      await apply(port, undefined);
      return;
    }
    const entry = parseEntry(raw);
    if (!entry) {
      this.options.log.warn(`fleet: imposter ${port} in redis is not a fleet entry; skipped`);
      return;
    }
    if (!always && this.applied.get(port) === entry.version) return;
    this.known.set(port, { config: entry.config, enabled: entry.enabled });
    try {
      await apply(port, entry);
      this.applied.set(port, entry.version);
    } catch (err) {
      // This node cannot run it (its port busy here, injection not allowed here): said once per version.
      this.applied.set(port, entry.version);
      this.options.log.error(`fleet: cannot apply imposter ${port} version ${entry.version}: ${errorText(err)}`);
    }
  }

  /** Loads the whole shared set: imposters not in it are deleted here, changed ones applied. */
  private async resync(): Promise<void> {
    const manager = this.manager;
    const writer = this.writer;
    if (!manager || !writer || this.closed) return;
    await manager.replicate(async (apply) => {
      const [all, version] = await Promise.all([writer.hgetall(this.keys.imposters), writer.get(this.keys.version)]);
      const shared = new Set<number>();
      await this.applyingShared(async () => {
        for (const [field, raw] of Object.entries(all)) {
          const port = Number(field);
          shared.add(port);
          await this.applyOne(apply, port, raw);
        }
        for (const imposter of manager.list()) {
          if (!shared.has(imposter.port)) await this.applyOne(apply, imposter.port, undefined);
        }
      });
      this.version = Math.max(this.version, Number(version ?? 0));
      this.synced = true;
    });
  }

  /** Imposters bound while `work` applies the shared set are the fleet's, not new: their journals go on. */
  private async applyingShared(work: () => Promise<void>): Promise<void> {
    this.applying = true;
    try {
      await work();
    } finally {
      this.applying = false;
    }
  }

  private scheduleResync(delayMs: number): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.feed = this.feed.then(
        () => this.resync(),
        () => undefined,
      );
      this.feed.catch((err: unknown) => {
        this.options.log.debug(`fleet: resync failed (${errorText(err)}); retrying`);
        this.scheduleResync(RESYNC_RETRY_MS);
      });
    }, delayMs);
    this.retry.unref();
  }

  private self(): FleetNode {
    return { id: this.options.nodeId, address: this.options.address, heartbeat: new Date().toISOString(), version: this.version };
  }

  private beat(): void {
    const writer = this.writer;
    if (writer?.status !== 'ready') return;
    const ttl = 3 * (this.options.heartbeatMs ?? 1_000);
    writer
      .multi()
      .set(this.keys.node(this.options.nodeId), JSON.stringify(this.self()), 'PX', ttl)
      .sadd(this.keys.nodes, this.options.nodeId)
      .get(this.keys.version)
      .exec()
      .then((replies) => {
        // A notice lost (sent while the subscriber was reconnecting): the set has moved on without this node.
        const latest = Number(replies?.[2]?.[1] ?? 0);
        if (latest > this.version) this.scheduleResync(0);
      })
      .catch(() => undefined);
  }

  /** `GET /fleet`: the nodes whose heartbeat has not expired; with Redis down, this node alone. */
  async status(): Promise<FleetStatus> {
    const writer = this.writer;
    const base = { node: this.options.nodeId, version: this.version };
    if (writer?.status !== 'ready') return { ...base, redis: 'down', nodes: [this.self()] };
    try {
      const ids = (await writer.smembers(this.keys.nodes)).sort();
      const raws = ids.length === 0 ? [] : await writer.mget(...ids.map((id) => this.keys.node(id)));
      const nodes: FleetNode[] = [];
      const gone: string[] = [];
      raws.forEach((raw, i) => {
        const node = raw === null ? undefined : (JSON.parse(raw) as FleetNode);
        if (node) nodes.push(node);
        else gone.push(ids[i]);
      });
      if (gone.length > 0) await writer.srem(this.keys.nodes, ...gone);
      return { ...base, redis: 'up', nodes };
    } catch {
      return { ...base, redis: 'down', nodes: [this.self()] };
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearInterval(this.hearing);
    clearTimeout(this.retry);
    for (const journal of this.journals.values()) journal.close();
    for (const claims of this.claims.values()) claims.close();
    await this.feed.catch(() => undefined);
    const writer = this.writer;
    if (writer?.status === 'ready') {
      await writer
        .multi()
        .del(this.keys.node(this.options.nodeId))
        .srem(this.keys.nodes, this.options.nodeId)
        .exec()
        .catch(() => undefined);
    }
    writer?.disconnect();
    this.subscriber?.disconnect();
  }
}

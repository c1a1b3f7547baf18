import type { Redis } from 'ioredis';
import type { CasResult, FlowStore } from './flow-store.js';
import { counted, type FlowStoreMetrics } from './flow-metrics.js';
import type { RedisSettings } from './flow-settings.js';
import { REDIS_COMMANDS, type RedisCommandName } from './redis-scripts.js';
import { errorText } from '../model/index.js';

export interface RedisFlowStoreOptions extends RedisSettings {
  ttlSeconds: number;
  metrics?: FlowStoreMetrics;
  /** Connect + PING deadline at open (docs/flow-state.md rule 1 fails creation rather than waiting). */
  openTimeoutMs?: number;
}

const OPEN_TIMEOUT_MS = 2_000;
/** A command that gets no answer (redis stopped, network gone) fails after this rather than hanging a request. */
const COMMAND_TIMEOUT_MS = 2_000;
/** How often `svc_active_flows` is refreshed from the server (expiry happens there, unseen). */
const GAUGE_INTERVAL_MS = 2_000;

/**
 * Stores that share a server and key prefix share its flows set (and so its count): per metrics sink,
 * only the first of them refreshes `svc_active_flows`, and the next takes over when it closes, so no
 * flow counts twice.
 */
const gaugeGroups = new WeakMap<FlowStoreMetrics, Map<string, RedisFlowStore[]>>();

function gaugeGroupsOf(metrics: FlowStoreMetrics): Map<string, RedisFlowStore[]> {
  let groups = gaugeGroups.get(metrics);
  if (!groups) {
    groups = new Map();
    gaugeGroups.set(metrics, groups);
  }
  return groups;
}

/** Rejections name the backend, so a 503 or script error says what failed. */
function storeError(err: unknown): Error {
  return new Error(`redis flow store: ${errorText(err)}`);
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

type Command = (...args: Array<string | number>) => Promise<unknown>;

/**
 * The `redis` backend: a small pool of ioredis connections used round-robin, values stored as JSON,
 * every write and its TTL applied by one Lua script (redis-scripts.ts). A flow's keys are listed in a
 * per-flow index set rather than found with SCAN: `ttl(seconds)` and `clear()` then cost the flow's own
 * size, where SCAN would walk the whole (possibly shared) keyspace on every call.
 */
export class RedisFlowStore implements FlowStore {
  readonly backend = 'redis' as const;
  private next = 0;
  private readonly ttlMs: number;
  private gauge: NodeJS.Timeout | undefined;
  private reported = 0;
  private closed = false;
  private readonly gaugeGroup: string;

  private constructor(
    private readonly pool: Redis[],
    private readonly options: RedisFlowStoreOptions,
  ) {
    this.ttlMs = options.ttlSeconds * 1000;
    this.gaugeGroup = `${options.url}\n${options.keyPrefix}`;
    if (options.metrics) {
      const groups = gaugeGroupsOf(options.metrics);
      const group = groups.get(this.gaugeGroup) ?? [];
      groups.set(this.gaugeGroup, group);
      group.push(this);
      if (group.length === 1) this.startGauge();
    }
  }

  /** Connects the pool and PINGs it; rejects (closing what opened) when the server cannot be reached. */
  static async open(options: RedisFlowStoreOptions): Promise<RedisFlowStore> {
    // Loaded here, not at start-up: ioredis costs ~200 ms of CPU and only redis flow stores need it.
    const { Redis } = await import('ioredis');
    let opened = false;
    const pool = Array.from({ length: options.poolSize }, () => {
      const connection = new Redis(options.url, {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: COMMAND_TIMEOUT_MS,
        connectTimeout: options.openTimeoutMs ?? OPEN_TIMEOUT_MS,
        // No retries while opening (creation fails with 400); afterwards reconnect with backoff, so the
        // store recovers when the server comes back. Meanwhile every call rejects (503 / script error).
        retryStrategy: (times) => (opened ? Math.min(times * 200, 2_000) : null),
      });
      // Failures reach callers as rejections; the event itself must not go unhandled.
      connection.on('error', () => undefined);
      for (const [name, command] of Object.entries(REDIS_COMMANDS)) connection.defineCommand(name, command);
      return connection;
    });
    try {
      await withTimeout(
        Promise.all(
          pool.map(async (c) => {
            await c.connect();
            await c.ping();
          }),
        ),
        options.openTimeoutMs ?? OPEN_TIMEOUT_MS,
        'connect',
      );
    } catch (err) {
      for (const connection of pool) connection.disconnect();
      throw storeError(err);
    }
    opened = true;
    return new RedisFlowStore(pool, options);
  }

  private connection(): Redis {
    const connection = this.pool[this.next];
    this.next = (this.next + 1) % this.pool.length;
    return connection;
  }

  private async run(name: RedisCommandName, ...args: Array<string | number>): Promise<unknown> {
    try {
      return await (this.connection() as unknown as Record<RedisCommandName, Command>)[name](...args);
    } catch (err) {
      throw storeError(err);
    }
  }

  private async plain<T>(call: (connection: Redis) => Promise<T>): Promise<T> {
    try {
      return await call(this.connection());
    } catch (err) {
      throw storeError(err);
    }
  }

  /** `encodeURIComponent` keeps `:` out of the flow part, so no flow's keys can collide with another's. */
  private flowPart(flowId: string): string {
    return this.options.keyPrefix + encodeURIComponent(flowId);
  }

  private flowsKey(): string {
    return `${this.options.keyPrefix}flows`;
  }

  /** KEYS value, index, flows and the flow's member in the flows set. */
  private keysOf(flowId: string, key: string): [string, string, string, string] {
    const flow = this.flowPart(flowId);
    return [`${flow}:k:${key}`, `${flow}:keys`, this.flowsKey(), flowId];
  }

  get(flowId: string, key: string): Promise<unknown> {
    return counted(
      this.options.metrics,
      'get',
      async () => {
        const text = await this.plain((c) => c.get(this.keysOf(flowId, key)[0]));
        return text === null ? undefined : (JSON.parse(text) as unknown);
      },
      (value) => (value === undefined ? 'miss' : 'ok'),
    );
  }

  set(flowId: string, key: string, value: unknown): Promise<void> {
    return counted(this.options.metrics, 'set', async () => {
      await this.run('svcFlowSet', ...this.keysOf(flowId, key), this.ttlMs, JSON.stringify(value ?? null));
    });
  }

  exists(flowId: string, key: string): Promise<boolean> {
    return counted(
      this.options.metrics,
      'exists',
      async () => (await this.plain((c) => c.exists(this.keysOf(flowId, key)[0]))) === 1,
      (found) => (found ? 'ok' : 'miss'),
    );
  }

  delete(flowId: string, key: string): Promise<boolean> {
    return counted(
      this.options.metrics,
      'delete',
      async () => (await this.run('svcFlowDelete', ...this.keysOf(flowId, key))) === 1,
      (found) => (found ? 'ok' : 'miss'),
    );
  }

  incrBy(flowId: string, key: string, by: number): Promise<number> {
    return counted(this.options.metrics, 'incr', async () => {
      if (!Number.isFinite(by)) throw new Error(`cannot increment '${key}' by ${by}`);
      return Number(await this.run('svcFlowIncrBy', ...this.keysOf(flowId, key), this.ttlMs, by));
    });
  }

  cas(flowId: string, key: string, expected: unknown, next: unknown): Promise<CasResult> {
    return counted(
      this.options.metrics,
      'cas',
      async (): Promise<CasResult> => {
        const reply = (await this.run(
          'svcFlowCas',
          ...this.keysOf(flowId, key),
          this.ttlMs,
          JSON.stringify(expected ?? null),
          JSON.stringify(next ?? null),
        )) as [number, string?];
        return reply[0] === 1 ? { applied: true } : { applied: false, current: JSON.parse(reply[1] ?? 'null') as unknown };
      },
      (result) => (result.applied ? 'ok' : 'conflict'),
    );
  }

  private expire(flowId: string, ms: number): Promise<unknown> {
    const [, index, flows, member] = this.keysOf(flowId, '');
    return this.run('svcFlowExpire', index, flows, member, ms);
  }

  expireFlow(flowId: string, seconds: number): Promise<void> {
    return counted(this.options.metrics, 'ttl', async () => {
      await this.expire(flowId, Math.round(seconds * 1000));
    });
  }

  expireKey(flowId: string, key: string, seconds: number): Promise<boolean> {
    return counted(
      this.options.metrics,
      'ttl',
      async () => (await this.run('svcFlowExpireKey', ...this.keysOf(flowId, key), Math.round(seconds * 1000))) === 1,
      (found) => (found ? 'ok' : 'miss'),
    );
  }

  entries(flowId: string): Promise<Record<string, unknown>> {
    return counted(this.options.metrics, 'entries', async () => {
      const [valuePrefix, index, flows, member] = this.keysOf(flowId, '');
      const reply = (await this.run('svcFlowEntries', index, flows, member)) as string[];
      const live: Array<[string, unknown]> = [];
      for (let i = 0; i + 1 < reply.length; i += 2) live.push([reply[i].slice(valuePrefix.length), JSON.parse(reply[i + 1]) as unknown]);
      // fromEntries defines own properties, so a key named `__proto__` is listed like any other.
      return Object.fromEntries(live);
    });
  }

  clear(flowId: string): Promise<void> {
    return counted(this.options.metrics, 'clear', async () => {
      await this.expire(flowId, 0);
    });
  }

  async activeFlows(): Promise<number> {
    return Number(await this.run('svcFlowActive', this.flowsKey()));
  }

  private startGauge(): void {
    this.gauge = setInterval(() => void this.refreshGauge(), GAUGE_INTERVAL_MS);
    this.gauge.unref();
  }

  /** Leaves the gauge group, withdrawing what this store reported and handing the refresh on. */
  private leaveGauge(): void {
    if (!this.options.metrics) return;
    const groups = gaugeGroupsOf(this.options.metrics);
    const group = groups.get(this.gaugeGroup)!;
    const wasReporting = group[0] === this;
    group.splice(group.indexOf(this), 1);
    if (group.length === 0) groups.delete(this.gaugeGroup);
    if (!wasReporting) return;
    clearInterval(this.gauge);
    this.options.metrics.onActiveFlows(this.backend, -this.reported);
    this.reported = 0;
    group[0]?.startGauge();
  }

  /** Reports the change since the last refresh; a failed refresh leaves the gauge as it was. */
  private async refreshGauge(): Promise<void> {
    try {
      const count = await this.activeFlows();
      if (this.closed) return;
      this.options.metrics?.onActiveFlows(this.backend, count - this.reported);
      this.reported = count;
    } catch {
      // The server is unreachable: operations report it; the gauge keeps its last value.
    }
  }

  /** Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.leaveGauge();
    await Promise.all(this.pool.map((connection) => connection.quit().catch(() => connection.disconnect())));
  }
}

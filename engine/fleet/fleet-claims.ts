import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RecordingClaims } from '../manager/index.js';

export interface ClaimCommands {
  svcClaim(claim: string, imposters: string, port: number, token: string, lifetimeMs: number, version: number): Promise<string>;
  svcClaimRenew(claim: string, token: string, lifetimeMs?: number): Promise<number>;
}

/** A claim outlives a node that stops renewing it (killed) by at most this long; a live node renews it 4 times over. */
const CLAIM_LIFETIME_MS = 5_000;
const RENEW_EVERY_MS = 1_000;

export interface FleetClaimsOptions {
  port: number;
  prefix: string;
  imposters: string;
  node: string;
  /** The writer connection while it is ready and the node synced; undefined while Redis is away. */
  writer: () => (Redis & ClaimCommands) | undefined;
  /** The fleet version of the imposter this node runs. */
  applied: () => number;
  /** Resolves when this node applied a change to the port, or after `ms`. */
  changed: (ms: number) => Promise<void>;
}

/** One imposter's proxyOnce claims (RecordingClaims) on the fleet's Redis: CLAIM_SCRIPT, renewed while held. */
export class FleetClaims implements RecordingClaims {
  /** Claims this node holds, by key: its token and renewal timer. */
  private readonly held = new Map<string, { token: string; renew: NodeJS.Timeout }>();

  constructor(private readonly options: FleetClaimsOptions) {}

  private keyOf(key: string): string {
    return `${this.options.prefix}proxyonce:${this.options.port}:${key}`;
  }

  async claim(key: string): Promise<'claimed' | 'busy' | 'unshared'> {
    const writer = this.options.writer();
    if (!writer) return 'unshared';
    const claim = this.keyOf(key);
    const token = `${this.options.node} ${randomUUID()}`;
    let answer: string;
    try {
      answer = await writer.svcClaim(claim, this.options.imposters, this.options.port, token, CLAIM_LIFETIME_MS, this.options.applied());
    } catch {
      return 'unshared';
    }
    if (answer !== 'claimed') return 'busy';
    // Renewed while the upstream answers, however slowly; a node that dies stops renewing.
    const renew = setInterval(() => {
      void this.options
        .writer()
        ?.svcClaimRenew(claim, token, CLAIM_LIFETIME_MS)
        .catch(() => undefined);
    }, RENEW_EVERY_MS);
    renew.unref();
    this.held.set(key, { token, renew });
    return 'claimed';
  }

  async release(key: string): Promise<void> {
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    clearInterval(held.renew);
    // Not dropped (Redis away): it expires.
    await this.options
      .writer()
      ?.svcClaimRenew(this.keyOf(key), held.token)
      .catch(() => undefined);
  }

  changed(ms: number): Promise<void> {
    return this.options.changed(ms);
  }

  /** The imposter stopped on this node: its claims are no longer renewed. */
  close(): void {
    for (const { renew } of this.held.values()) clearInterval(renew);
    this.held.clear();
  }
}

import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../analysis/index.js';
import type { ImposterDefinition, StubDefinition } from '../validate/index.js';
import type { Imposter, LiveStub } from './imposter.js';

/** Configs keyed by content (canonical JSON), each key's entries in list order: equal-config lookups in O(1). */
class ConfigPool<T> {
  private readonly byKey = new Map<string, { entries: T[]; next: number }>();

  constructor(entries: readonly T[], key: (entry: T) => string) {
    for (const entry of entries) {
      const k = key(entry);
      const bucket = this.byKey.get(k);
      if (bucket) bucket.entries.push(entry);
      else this.byKey.set(k, { entries: [entry], next: 0 });
    }
  }

  /** Removes and returns the earliest entry under `key` that `usable` accepts; unusable ones met on the way are dropped. */
  take(key: string, usable: (entry: T) => boolean = () => true): T | undefined {
    const bucket = this.byKey.get(key);
    while (bucket && bucket.next < bucket.entries.length) {
      const entry = bucket.entries[bucket.next++];
      if (usable(entry)) return entry;
    }
    return undefined;
  }
}

function withoutId(config: Record<string, unknown>): string {
  const { id: _id, ...rest } = config;
  return canonicalJson(rest);
}

/**
 * Ids for stubs that arrive without one: the id of an identical running stub, so re-sending an unchanged
 * configuration leaves it unchanged (recorded requests and response cycles kept); otherwise a fresh one
 * when ids are generated.
 */
export function withStubIds(definition: ImposterDefinition, current: Imposter | undefined, generateIds: boolean): ImposterDefinition {
  const pool = new ConfigPool(current ? current.stubs.map((live) => live.config) : [], withoutId);
  const taken = new Set<unknown>(definition.stubs.map((stub) => stub.config.id).filter((id) => id !== undefined));
  const stubs = definition.stubs.map((stub): StubDefinition => {
    if (stub.config.id !== undefined) return stub;
    // A taken id stays taken, so a pool entry passed over for it is never wanted later.
    const match = pool.take(withoutId(stub.config), (config) => !taken.has(config.id));
    if (match) {
      if (match.id === undefined) return stub;
      taken.add(match.id);
      return { ...stub, config: { id: match.id, ...stub.config } };
    }
    return generateIds ? { ...stub, config: { id: randomUUID(), ...stub.config } } : stub;
  });
  return { ...definition, stubs };
}

/** Keeps the live state (response cycle) of stubs whose config did not change. */
export function reuseStubs(imposter: Imposter, stubs: StubDefinition[]): LiveStub[] {
  const pool = new ConfigPool(imposter.stubs, (live) => canonicalJson(live.config));
  return stubs.map((stub) => pool.take(canonicalJson(stub.config)) ?? imposter.liveStub(stub));
}

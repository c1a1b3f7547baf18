import type { CasResult, FlowStore } from './flow-store.js';

/**
 * SPEC §2.8 rule 3: the store of an imposter that needs no state. Every write succeeds and is
 * forgotten, so reads see an empty flow (an increment answers as if starting from 0 each time).
 */
export class NoopFlowStore implements FlowStore {
  readonly backend = 'noop' as const;

  async get(): Promise<unknown> {
    return undefined;
  }

  async set(): Promise<void> {}

  async exists(): Promise<boolean> {
    return false;
  }

  async delete(): Promise<boolean> {
    return false;
  }

  async incrBy(_flowId: string, _key: string, by: number): Promise<number> {
    return by;
  }

  async cas(_flowId: string, _key: string, expected: unknown): Promise<CasResult> {
    return expected === null || expected === undefined ? { applied: true } : { applied: false, current: null };
  }

  async expireFlow(): Promise<void> {}

  async expireKey(): Promise<boolean> {
    return false;
  }

  async clear(): Promise<void> {}

  async activeFlows(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}

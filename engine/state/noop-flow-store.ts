import type { CasResult, FlowStore } from './flow-store.js';

/**
 * docs/flow-state.md rule 3: the store of an imposter that needs no state. Every write succeeds and is
 * forgotten, so reads see an empty flow (an increment answers as if starting from 0 each time).
 */
export class NoopFlowStore implements FlowStore {
  readonly backend = 'noop' as const;

  async get(_flowId: string, _key: string): Promise<unknown> {
    return undefined;
  }

  async set(_flowId: string, _key: string, _value: unknown): Promise<void> {}

  async exists(_flowId: string, _key: string): Promise<boolean> {
    return false;
  }

  async delete(_flowId: string, _key: string): Promise<boolean> {
    return false;
  }

  async incrBy(_flowId: string, _key: string, by: number): Promise<number> {
    return by;
  }

  async cas(_flowId: string, _key: string, expected: unknown, _next: unknown): Promise<CasResult> {
    return expected === null || expected === undefined ? { applied: true } : { applied: false, current: null };
  }

  async expireFlow(_flowId: string, _seconds: number): Promise<void> {}

  async expireKey(_flowId: string, _key: string, _seconds: number): Promise<boolean> {
    return false;
  }

  async entries(_flowId: string): Promise<Record<string, unknown>> {
    return {};
  }

  async clear(_flowId: string): Promise<void> {}

  async activeFlows(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}

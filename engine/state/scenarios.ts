/**
 * Scenario state (docs/imposters.md, §3 scenario rows, §4.6): one state per (imposter, scenario name, flow
 * id), kept in the imposter's FlowStore under a reserved key per scenario, so it follows the
 * imposter's backend (memory or redis) and its TTL. An absent key reads as the initial state.
 */
import type { FlowStore } from './flow-store.js';
import { MemoryFlowStore } from './memory-flow-store.js';

/**
 * The state of a scenario nothing has moved yet. The spec leaves it open; `Started` is WireMock's
 * name, which users of scenario state machines already write in `requiredScenarioState`.
 */
const INITIAL_SCENARIO_STATE = 'Started';

const KEY_PREFIX = '__scenario:';

/** The flow-store key holding one scenario's state (reserved: scripts and admin see it too). */
export function scenarioKey(name: string): string {
  return KEY_PREFIX + name;
}

/** The state a stored value stands for (absent: the initial state). */
export function scenarioStateOf(stored: unknown): string {
  return typeof stored === 'string' ? stored : INITIAL_SCENARIO_STATE;
}

/** The in-memory backend answers synchronously; matching then needs no promise (and no interleaving). */
export function syncStore(store: FlowStore): MemoryFlowStore | undefined {
  return store instanceof MemoryFlowStore ? store : undefined;
}

export async function readScenarioState(store: FlowStore, flowId: string, name: string): Promise<string> {
  return scenarioStateOf(await store.get(flowId, scenarioKey(name)));
}

/** States read synchronously from the in-memory backend. */
export function readScenarioStateNow(store: MemoryFlowStore, flowId: string, name: string): string {
  return scenarioStateOf(store.getNow(flowId, scenarioKey(name)));
}

export function writeScenarioState(store: FlowStore, flowId: string, name: string, state: string): Promise<void> {
  return store.set(flowId, scenarioKey(name), state);
}

/** Back to the initial state: the keys are removed rather than rewritten, so nothing is left to expire. */
export async function resetScenarioStates(store: FlowStore, flowId: string, names: Iterable<string>): Promise<void> {
  await Promise.all([...names].map((name) => store.delete(flowId, scenarioKey(name))));
}

/** `[{name, state}]` for the given scenario names, in their order. */
export async function scenarioStates(store: FlowStore, flowId: string, names: readonly string[]): Promise<Array<{ name: string; state: string }>> {
  const states = await Promise.all(names.map((name) => readScenarioState(store, flowId, name)));
  return names.map((name, i) => ({ name, state: states[i]! }));
}

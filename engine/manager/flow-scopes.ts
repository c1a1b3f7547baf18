/**
 * Scenarios (docs/scenarios-and-spaces.md) and spaces (docs/scenarios-and-spaces.md) of one imposter, as the JSON every surface returns.
 * ImposterManager wraps these; stub-list changes go back through it (validation, lifecycle events).
 */
import { errors, errorText, isObject } from '../model/index.js';
import { resetScenarioStates, scenarioNamesFor, scenarioStates, writeScenarioState } from '../state/index.js';
import type { Imposter, LiveStub } from './imposter.js';
import type { RecordedRequest } from './recorded-request.js';

export interface ScenarioList {
  flowId: string;
  scenarios: Array<{ name: string; state: string }>;
}

export interface SpaceStubs {
  space: string;
  stubs: Array<Record<string, unknown>>;
}

export interface SpaceDetail extends SpaceStubs {
  scenarios: Array<{ name: string; state: string }>;
  numberOfRequests: number;
}

/** The flow an admin call addresses: the given id, or the default flow (the imposter port). */
export function flowIdOrDefault(imposter: Imposter, flowId: unknown): string {
  if (flowId === undefined || flowId === null || flowId === '') return String(imposter.port);
  if (typeof flowId !== 'string') throw errors.badData("'flowId' must be a string");
  return flowId;
}

function configs(imposter: Imposter): Array<Record<string, unknown>> {
  return imposter.stubs.map((stub) => stub.config);
}

/** Store failures are the 503 of docs/flow-state.md, as for the flow-state routes. */
async function fromStore<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw errors.serviceUnavailable(`flow store unavailable: ${errorText(err)}`);
  }
}

/** Every scenario the flow's stubs declare, with its state for that flow. */
export async function listScenarios(imposter: Imposter, flowId: string): Promise<ScenarioList> {
  const names = scenarioNamesFor(configs(imposter), flowId);
  return { flowId, scenarios: await fromStore(scenarioStates(imposter.flowStore, flowId, names)) };
}

/** PUT .../scenarios/{name}/state: body `{state, flowId?}`. */
export async function putScenarioState(imposter: Imposter, name: string, body: unknown): Promise<{ flowId: string; name: string; state: string }> {
  if (!isObject(body)) throw errors.badData("request body must be a JSON object with 'state'");
  const { state } = body;
  if (typeof state !== 'string' || state === '') throw errors.badData("'state' is required and must be a non-empty string");
  const flowId = flowIdOrDefault(imposter, body.flowId);
  await fromStore(writeScenarioState(imposter.flowStore, flowId, name, state));
  return { flowId, name, state };
}

/** Every scenario the imposter declares goes back to its initial state for the flow. */
export async function resetScenarios(imposter: Imposter, flowId: string): Promise<{ flowId: string; reset: true }> {
  await fromStore(resetScenarioStates(imposter.flowStore, flowId, scenarioNamesFor(configs(imposter), flowId)));
  return { flowId, reset: true };
}

export function spaceStubs(imposter: Imposter, flowId: string): SpaceStubs {
  return { space: flowId, stubs: imposter.stubConfigs().filter((config) => config.space === flowId) };
}

/**
 * The flow's recorded requests as the polling filter (`savedRequests?match=flow_id=`) finds them: for
 * a header-sourced imposter, those that carried the header with that value.
 */
export function spaceRecorded(imposter: Imposter, flowId: string): RecordedRequest[] {
  return imposter.journal
    .all()
    .map((entry) => entry.value)
    .filter((request) => imposter.recordedFlowId(request) === flowId);
}

export async function spaceDetail(imposter: Imposter, flowId: string): Promise<SpaceDetail> {
  const { scenarios } = await listScenarios(imposter, flowId);
  return { ...spaceStubs(imposter, flowId), scenarios, numberOfRequests: spaceRecorded(imposter, flowId).length };
}

/**
 * DELETE .../spaces/{flowId}: the space's stubs (through `setStubs`, when it has any), its recorded
 * requests, and the flow's state of every scenario it could see (named before its stubs go).
 */
export async function deleteSpace(
  imposter: Imposter,
  flowId: string,
  setStubs: (kept: LiveStub[]) => Promise<void>,
): Promise<{ space: string; tornDown: true }> {
  const scenarioNames = scenarioNamesFor(configs(imposter), flowId);
  const kept = imposter.stubs.filter((stub) => stub.config.space !== flowId);
  if (kept.length !== imposter.stubs.length) await setStubs(kept);
  await imposter.clearRecords((request) => imposter.recordedFlowId(request) === flowId);
  await fromStore(resetScenarioStates(imposter.flowStore, flowId, scenarioNames));
  return { space: flowId, tornDown: true };
}

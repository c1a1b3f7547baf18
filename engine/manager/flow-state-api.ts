/**
 * The admin flow-state operations of docs/flow-state.md over one imposter's FlowStore, answering the spec's
 * JSON. ImposterManager exposes them to the admin routes and the C ABI.
 */
import { errors, errorText, isObject } from '../model/index.js';
import type { Imposter } from './imposter.js';

/** A store failure is the backend being unavailable (503), never a default answer. */
async function fromStore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw errors.serviceUnavailable(`flow store unavailable: ${errorText(err)}`);
  }
}

const absent = (flowId: string, key: string) => errors.noSuchResource(`no flow state key '${key}' in flow '${flowId}'`);

export async function getFlowState(imposter: Imposter, flowId: string, key: string): Promise<{ flowId: string; key: string; value: unknown }> {
  const value = await fromStore(() => imposter.flowStore.get(flowId, key));
  if (value === undefined) throw absent(flowId, key);
  return { flowId, key, value };
}

/** Body `{value: any JSON}`; a body without `value` is a 400. */
export async function putFlowState(imposter: Imposter, flowId: string, key: string, body: unknown): Promise<{ flowId: string; key: string; value: unknown }> {
  if (!isObject(body) || !('value' in body)) throw errors.badData('\'value\' is required: {"value": <any JSON>}');
  await fromStore(() => imposter.flowStore.set(flowId, key, body.value));
  return { flowId, key, value: body.value };
}

export async function deleteFlowState(imposter: Imposter, flowId: string, key: string): Promise<{ flowId: string; key: string; deleted: true }> {
  if (!(await fromStore(() => imposter.flowStore.delete(flowId, key)))) throw absent(flowId, key);
  return { flowId, key, deleted: true };
}

/** svc extension: every live key of the flow; an absent flow answers an empty `values`. */
export async function listFlowState(imposter: Imposter, flowId: string): Promise<{ flowId: string; values: Record<string, unknown> }> {
  return { flowId, values: await fromStore(() => imposter.flowStore.entries(flowId)) };
}

/** Idempotent: an absent or empty flow is cleared too. */
export async function clearFlowState(imposter: Imposter, flowId: string): Promise<{ flowId: string; cleared: true }> {
  await fromStore(() => imposter.flowStore.clear(flowId));
  return { flowId, cleared: true };
}

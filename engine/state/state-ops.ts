import { isObject, type StateOpName } from '../model/index.js';
import type { FlowStore } from './flow-store.js';

/** One `_svc.stateOps` entry (docs/responses.md) as validated by the model (stateOpsProblems). */
export type StateOp =
  | { op: 'set'; key: string; value: unknown }
  | { op: 'increment' | 'decrement'; key: string; by: number }
  | { op: 'delete'; key: string }
  | { op: 'clear' };

function compileOp(raw: Record<string, unknown>): StateOp {
  const op = raw.op as StateOpName;
  const key = raw.key as string;
  switch (op) {
    case 'set':
      return { op, key, value: raw.value };
    case 'increment':
    case 'decrement':
      return { op, key, by: typeof raw.by === 'number' ? raw.by : 1 };
    case 'delete':
      return { op, key };
    case 'clear':
      return { op };
  }
}

/**
 * The state ops of each response of a stub, by response index; undefined when none has any, so
 * stubs without them carry nothing per request.
 */
export function compileStateOps(responses: readonly unknown[]): Array<StateOp[] | undefined> | undefined {
  const compiled = responses.map((response) => {
    const ops = isObject(response) && isObject(response._svc) ? response._svc.stateOps : undefined;
    return Array.isArray(ops) && ops.length > 0 ? ops.map((op) => compileOp(op as Record<string, unknown>)) : undefined;
  });
  return compiled.some((ops) => ops !== undefined) ? compiled : undefined;
}

/** Applies the ops in order to one flow; the first store failure rejects (the request then gets a 500). */
export async function applyStateOps(store: FlowStore, flowId: string, ops: readonly StateOp[]): Promise<void> {
  for (const op of ops) {
    switch (op.op) {
      case 'set':
        await store.set(flowId, op.key, op.value);
        break;
      case 'increment':
        await store.incrBy(flowId, op.key, op.by);
        break;
      case 'decrement':
        await store.incrBy(flowId, op.key, -op.by);
        break;
      case 'delete':
        await store.delete(flowId, op.key);
        break;
      case 'clear':
        await store.clear(flowId);
        break;
    }
  }
}

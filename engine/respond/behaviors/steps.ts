import { isObject } from '../../model/index.js';

export type BehaviorKind = 'wait' | 'lookup' | 'copy' | 'shellTransform' | 'decorate';

/** The execution order of the `_behaviors` object form (docs/behaviors.md). */
export const BEHAVIOR_ORDER: readonly BehaviorKind[] = ['wait', 'lookup', 'copy', 'shellTransform', 'decorate'];

const KNOWN = new Set<string>(BEHAVIOR_ORDER);

/** One behavior entry as mountebank's array form holds it: a single-key object. */
export type BehaviorEntry = Record<string, unknown>;

/**
 * The ordered behavior list of a response. `_behaviors` (object form) wins when present and expands
 * like mountebank's upcast: keys in SPEC order, array values (copy, lookup, shellTransform) one entry
 * per element; otherwise the `behaviors` array is taken as written. Non-object `_behaviors` and a
 * non-array `behaviors` give `undefined` (validation reports those).
 */
export function behaviorEntries(response: Record<string, unknown>): BehaviorEntry[] | undefined {
  const object = response._behaviors;
  if (object !== undefined) {
    if (!isObject(object)) return undefined;
    const entries: BehaviorEntry[] = [];
    for (const kind of BEHAVIOR_ORDER) {
      const value = object[kind];
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const element of value) entries.push({ [kind]: element });
      else entries.push({ [kind]: value });
    }
    return entries;
  }
  const list = response.behaviors;
  if (list === undefined) return [];
  return Array.isArray(list) ? (list as BehaviorEntry[]) : undefined;
}

/** The behavior steps of one entry, in key order (validation allows only one per entry). */
export function entrySteps(entry: BehaviorEntry): Array<{ kind: BehaviorKind; value: unknown }> {
  const steps: Array<{ kind: BehaviorKind; value: unknown }> = [];
  if (!isObject(entry)) return steps;
  for (const [key, value] of Object.entries(entry)) {
    if (KNOWN.has(key)) steps.push({ kind: key as BehaviorKind, value });
  }
  return steps;
}

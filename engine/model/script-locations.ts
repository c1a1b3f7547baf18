/**
 * Where `_svc.script` specs sit in a stub (README "Scripts"): the same `{"_svc": {"script": S}}`
 * object wherever a script goes —
 * - response: a response `{"_svc": {"script": S}}` (entry `respond(ctx)`);
 * - predicate: a predicate `{"_svc": {"script": S}}` in `predicates` (entry `matches(ctx)`), also inside and/or/not;
 * - decorate: `_behaviors: {"decorate": {"_svc": {"script": S}}}` (entry `transform(ctx)`);
 * - wait: `_behaviors: {"wait": {"_svc": {"script": S}}}` (entry `delay(ctx)`).
 */
import { isObject } from './json.js';

/** Where a script runs (docs/scripts.md), named by its entry point. */
export type ScriptPlacement = 'respond' | 'matches' | 'transform' | 'delay';

export interface StubScript {
  placement: ScriptPlacement;
  spec: unknown;
  where: string;
}

/** The spec of a `{"_svc": {"script": S}}` holder, or undefined when `value` is not one. */
export function scriptSpecOf(value: unknown): unknown {
  return isObject(value) && isObject(value._svc) ? value._svc.script : undefined;
}

/** True for a predicate object that is a script predicate. */
export function isScriptPredicate(predicate: unknown): boolean {
  return isObject(predicate) && isObject(predicate._svc);
}

function predicateScripts(predicate: unknown, where: string, out: StubScript[]): void {
  if (Array.isArray(predicate)) {
    predicate.forEach((p, i) => {
      predicateScripts(p, `${where}[${i}]`, out);
    });
    return;
  }
  if (!isObject(predicate)) return;
  if (isObject(predicate._svc)) out.push({ placement: 'matches', spec: predicate._svc.script, where: `${where}._svc.script` });
  for (const key of ['and', 'or', 'not']) if (predicate[key] !== undefined) predicateScripts(predicate[key], `${where}.${key}`, out);
}

/** Behavior entries of a response: `_behaviors`, or the array form. */
function behaviorEntries(response: Record<string, unknown>): Array<Record<string, unknown>> {
  if (isObject(response._behaviors)) return [response._behaviors];
  if (Array.isArray(response.behaviors)) return response.behaviors.filter(isObject);
  return [];
}

export function stubScripts(stub: Record<string, unknown>): StubScript[] {
  const out: StubScript[] = [];
  predicateScripts(stub.predicates, 'predicates', out);
  const responses = Array.isArray(stub.responses) ? stub.responses : [];
  responses.forEach((response, i) => {
    if (!isObject(response)) return;
    const where = `responses[${i}]`;
    if (isObject(response._svc) && response._svc.script !== undefined)
      out.push({ placement: 'respond', spec: response._svc.script, where: `${where}._svc.script` });
    for (const behaviors of behaviorEntries(response)) {
      for (const [key, placement] of [
        ['decorate', 'transform'],
        ['wait', 'delay'],
      ] as const) {
        if (isObject(behaviors[key]) && isObject((behaviors[key] as Record<string, unknown>)._svc)) {
          out.push({ placement, spec: scriptSpecOf(behaviors[key]), where: `${where}._behaviors.${key}._svc.script` });
        }
      }
    }
  });
  return out;
}

import { isObject } from '../../model/index.js';
import { behaviorEntries, entrySteps, type BehaviorKind } from './steps.js';
import { compileWait } from './wait.js';
import { compileCopy } from './copy.js';
import { compileLookup } from './lookup.js';
import { compileShellTransform } from './shell-transform.js';
import { compileDecorate } from './decorate.js';
import type { BehaviorContext, ResponseFields, StepRunner } from './types.js';
import { compileSvcDecorate, compileSvcWait } from './svc-steps.js';
import { compileScript } from '../shared/index.js';
import type { ScriptSettings } from '../../script/svc/index.js';

/** What `_svc.script` behaviors compile against: the imposter's script settings and the stub. */
export interface BehaviorScriptContext {
  settings: ScriptSettings;
  stub: Record<string, unknown>;
}

/** A response's behaviors compiled once when its stub changes, run in order per request. */
export interface CompiledBehaviors {
  readonly steps: readonly StepRunner[];
}

function compileStep(kind: BehaviorKind, value: unknown, scripts: BehaviorScriptContext | undefined): StepRunner {
  if (scripts && (kind === 'wait' || kind === 'decorate') && isObject(value) && isObject(value._svc)) {
    const script = compileScript(value._svc.script, kind === 'wait' ? 'delay' : 'transform', scripts.settings, scripts.stub);
    return kind === 'wait' ? compileSvcWait(script) : compileSvcDecorate(script);
  }
  switch (kind) {
    case 'wait':
      return compileWait(value);
    case 'copy':
      return compileCopy(value as Record<string, unknown>);
    case 'lookup':
      return compileLookup(value as Record<string, unknown>);
    case 'shellTransform':
      return compileShellTransform(String(value));
    case 'decorate':
      return compileDecorate(String(value));
  }
}

/** The behaviors of a validated response, or undefined when it has none (`repeat` is the cycle's business). */
export function compileBehaviors(response: Record<string, unknown>, scripts?: BehaviorScriptContext): CompiledBehaviors | undefined {
  const entries = behaviorEntries(response) ?? [];
  const steps = entries
    .filter(isObject)
    .flatMap(entrySteps)
    .map(({ kind, value }) => compileStep(kind, value, scripts));
  return steps.length > 0 ? { steps } : undefined;
}

export async function runBehaviors(behaviors: CompiledBehaviors, response: ResponseFields, ctx: BehaviorContext): Promise<ResponseFields> {
  let current = response;
  for (const step of behaviors.steps) current = await step(current, ctx);
  return current;
}

import { isObject, MAX_DELAY_MS } from '../../model/index.js';
import { behaviorEntries, entrySteps, type BehaviorKind } from './steps.js';
import { compileWait, plainDelay, type PlainDelay } from './wait.js';
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
  /** Every step is a `wait` (of any form): the response leaves the steps exactly as it entered them. */
  readonly waitsOnly: boolean;
  /** Every step is a plain `wait` (a number or a range, no script): their whole delay, drawn per request. */
  readonly delay?: () => number;
}

/** Whether a `wait` or `decorate` value is a `_svc.script` the imposter's script settings compile (svc-steps.ts). */
function isSvcScript(value: unknown, scripts: BehaviorScriptContext | undefined): value is { _svc: Record<string, unknown> } {
  return scripts !== undefined && isObject(value) && isObject(value._svc);
}

/**
 * The delays of `entries` summed, when each is a plain wait and the sum fits one timer (node fires a
 * longer one after 1 ms; such waits keep their own timers, one after another).
 */
function plainDelays(entries: Array<{ kind: BehaviorKind; value: unknown }>, scripts: BehaviorScriptContext | undefined): (() => number) | undefined {
  const delays: PlainDelay[] = [];
  let max = 0;
  for (const { kind, value } of entries) {
    const delay = kind === 'wait' && !isSvcScript(value, scripts) ? plainDelay(value) : undefined;
    if (!delay) return undefined;
    delays.push(delay);
    max += delay.max;
  }
  if (!(max <= MAX_DELAY_MS)) return undefined;
  if (delays.length === 1) return delays[0]!.draw;
  return () => delays.reduce((total, delay) => total + delay.draw(), 0);
}

function compileStep(kind: BehaviorKind, value: unknown, scripts: BehaviorScriptContext | undefined): StepRunner {
  if (scripts && (kind === 'wait' || kind === 'decorate') && isSvcScript(value, scripts)) {
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
  const entries = (behaviorEntries(response) ?? []).filter(isObject).flatMap(entrySteps);
  if (entries.length === 0) return undefined;
  return {
    steps: entries.map(({ kind, value }) => compileStep(kind, value, scripts)),
    waitsOnly: entries.every(({ kind }) => kind === 'wait'),
    delay: plainDelays(entries, scripts),
  };
}

export async function runBehaviors(behaviors: CompiledBehaviors, response: ResponseFields, ctx: BehaviorContext): Promise<ResponseFields> {
  let current = response;
  for (const step of behaviors.steps) current = await step(current, ctx);
  return current;
}

import { isObject } from './json.js';

const JS_INJECTION = 'JavaScript injection is not allowed unless svc is run with the --allowInjection flag';
const SHELL = 'Shell execution is not allowed unless svc is run with the --allowInjection flag';

function predicateHasInject(predicate: unknown): boolean {
  if (Array.isArray(predicate)) return predicate.some(predicateHasInject);
  if (!isObject(predicate)) return false;
  if (predicate.inject !== undefined || predicate._svc !== undefined) return true;
  return ['and', 'or', 'not'].some((key) => predicate[key] !== undefined && predicateHasInject(predicate[key]));
}

function behaviorEntries(response: Record<string, unknown>): Array<Record<string, unknown>> {
  if (isObject(response._behaviors)) return [response._behaviors];
  if (Array.isArray(response.behaviors)) return response.behaviors.filter(isObject);
  return [];
}

function isScriptedWait(wait: unknown): boolean {
  return typeof wait === 'string' || (isObject(wait) && (wait.inject !== undefined || wait._svc !== undefined));
}

function responseIsScripted(response: Record<string, unknown>): boolean {
  if (response.inject !== undefined) return true;
  const svc = response._svc;
  if (isObject(svc) && svc.script !== undefined) return true;
  const proxy = response.proxy;
  if (isObject(proxy)) {
    if (proxy.addDecorateBehavior !== undefined) return true;
    if (Array.isArray(proxy.predicateGenerators) && proxy.predicateGenerators.some((g) => isObject(g) && g.inject !== undefined)) {
      return true;
    }
  }
  return behaviorEntries(response).some((b) => b.decorate !== undefined || isScriptedWait(b.wait));
}

function responseRunsShell(response: Record<string, unknown>): boolean {
  return behaviorEntries(response).some((b) => b.shellTransform !== undefined);
}

/** Why a stub needs `--allowInjection` (empty when it does not); mountebank's messages. */
export function scriptedReasons(stub: Record<string, unknown>): string[] {
  const responses = Array.isArray(stub.responses) ? stub.responses.filter(isObject) : [];
  const reasons: string[] = [];
  if (predicateHasInject(stub.predicates) || responses.some(responseIsScripted)) reasons.push(JS_INJECTION);
  if (responses.some(responseRunsShell)) reasons.push(SHELL);
  return reasons;
}

/** True when a predicate list (verify body) contains an inject predicate. */
export function predicatesAreScripted(predicates: unknown): boolean {
  return predicateHasInject(predicates);
}

export const injectionMessages = { javascript: JS_INJECTION };

/**
 * A stub's `_svc.script` specs checked: where they sit is model knowledge (engine/model
 * script-locations.ts, which engine/state also reads); resolving and compiling them is this room's.
 */
import { stubScripts } from '../../model/index.js';
import { resolveScript, ScriptSpecError, type ScriptSettings } from './spec.js';

export { stubScripts, scriptSpecOf, isScriptPredicate, type StubScript } from '../../model/index.js';

/** Every script problem of a stub (400 messages), resolving files and refs and compiling. */
export function stubScriptProblems(stub: Record<string, unknown>, settings: ScriptSettings): string[] {
  const problems: string[] = [];
  for (const script of stubScripts(stub)) {
    try {
      resolveScript(script.spec, settings, script.where);
    } catch (err) {
      if (!(err instanceof ScriptSpecError)) throw err;
      problems.push(err.message);
    }
  }
  if (stub.routePattern !== undefined && typeof stub.routePattern !== 'string') problems.push("'routePattern' must be a string");
  return problems;
}

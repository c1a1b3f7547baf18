export { compileBehaviors, runBehaviors, type CompiledBehaviors } from './compile.js';
export { behaviorProblems, type BehaviorProblem } from './validate.js';
export { BehaviorError, type BehaviorContext, type BehaviorScripts, type ResponseFields } from './types.js';
export { behaviorScriptsOf, injectedPredicates, type SandboxAccess } from './js-scripts.js';

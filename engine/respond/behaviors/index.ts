export { compileBehaviors, runBehaviors, type CompiledBehaviors } from './compile.js';
export { behaviorProblems } from './validate.js';
export { BehaviorError, type BehaviorContext, type ResponseFields } from './types.js';
export { behaviorScriptsOf, injectedPredicates } from './js-scripts.js';

/**
 * The standard library as one native registry, built once and forked per engine.
 */
import { NativeRegistry } from './natives.js';
import type { Run } from './runtime.js';
import { registerArray } from './stdlib-array.js';
import { registerCore } from './stdlib-core.js';
import { registerMap } from './stdlib-map.js';
import { registerMath } from './stdlib-math.js';
import { registerString } from './stdlib-string.js';

let base: NativeRegistry<Run> | undefined;

export function standardLibrary(): NativeRegistry<Run> {
  if (!base) {
    base = new NativeRegistry<Run>();
    registerCore(base);
    registerMath(base);
    registerString(base);
    registerArray(base);
    registerMap(base);
  }
  return base.fork();
}

/**
 * The standard library as one native registry, built once and forked per engine.
 */
import { NativeRegistry } from '../natives.js';
import { registerArray } from './array.js';
import { registerCore } from './core.js';
import { registerMap } from './map.js';
import { registerMath } from './math.js';
import { registerString } from './string.js';

let base: NativeRegistry | undefined;

export function standardLibrary(): NativeRegistry {
  if (!base) {
    base = new NativeRegistry();
    registerCore(base);
    registerMath(base);
    registerString(base);
    registerArray(base);
    registerMap(base);
  }
  return base.fork();
}

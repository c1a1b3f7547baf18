/**
 * Object map functions. Maps iterate in key order, as Rhai's BTreeMap-backed maps do.
 */
import { runtimeError, type Pos } from './errors.js';
import type { NativeRegistry } from './natives.js';
import type { Run } from './runtime.js';
import { type FnPtr, RChar, sortedKeys, typeName, type RMap, type Value } from './values.js';
import { fresh, grows } from './memory.js';

const map = (v: Value): RMap => v as RMap;
const key = (v: Value): string => (v instanceof RChar ? v.c : (v as string));

/** Keeps or removes the entries a (key, value) predicate selects; returns the removed entries. */
function partition(r: Run, m: RMap, fp: FnPtr, pos: Pos, removeMatching: boolean): RMap {
  const removed: RMap = new Map();
  for (const k of sortedKeys(m)) {
    const hit = r.callPtr(fp, [k, m.get(k)], pos);
    if (typeof hit !== 'boolean') throw runtimeError(`Data type incorrect: ${typeName(hit)} (expecting bool)`, pos);
    if (hit === removeMatching) {
      removed.set(k, m.get(k));
      m.delete(k);
    }
  }
  return removed;
}

export function registerMap(n: NativeRegistry<Run>): void {
  n.add('len', ['map'], ([m]) => map(m).size);
  n.add('get$len', ['map'], ([m]) => map(m).size);
  n.add('is_empty', ['map'], ([m]) => map(m).size === 0);
  n.add('contains', ['map', 'text'], ([m, k]) => map(m).has(key(k)));
  n.add('get', ['map', 'text'], ([m, k]) => map(m).get(key(k)));
  n.add(
    'set',
    ['map', 'text', 'any'],
    grows(([m, k, v], r, pos) => (map(m).set(key(k), v), r.checkMap(map(m), pos), undefined)),
  );
  n.add('remove', ['map', 'text'], ([m, k]) => {
    const v = map(m).get(key(k));
    map(m).delete(key(k));
    return v;
  });
  n.add('clear', ['map'], ([m]) => (map(m).clear(), undefined));
  n.add(
    'keys',
    ['map'],
    fresh(([m]) => sortedKeys(map(m))),
  );
  n.add(
    'values',
    ['map'],
    fresh(([m]) => sortedKeys(map(m)).map((k) => map(m).get(k))),
  );
  n.add(
    'mixin',
    ['map', 'map'],
    grows(([m, o], r, pos) => {
      for (const [k, v] of map(o)) map(m).set(k, v);
      r.checkMap(map(m), pos);
      return undefined;
    }),
  );
  n.add(
    'fill_with',
    ['map', 'map'],
    grows(([m, o], r, pos) => {
      for (const [k, v] of map(o)) if (!map(m).has(k)) map(m).set(k, v);
      r.checkMap(map(m), pos);
      return undefined;
    }),
  );
  n.add(
    'drain',
    ['map', 'Fn'],
    fresh(([m, fp], r, pos) => partition(r, map(m), fp as FnPtr, pos, true)),
  );
  n.add(
    'retain',
    ['map', 'Fn'],
    fresh(([m, fp], r, pos) => partition(r, map(m), fp as FnPtr, pos, false)),
  );
  n.add(
    'filter',
    ['map', 'Fn'],
    fresh(([m, fp], r, pos) => {
      const out: RMap = new Map();
      for (const k of sortedKeys(map(m))) {
        const hit = r.callPtr(fp as FnPtr, [k, map(m).get(k)], pos);
        if (hit === true) out.set(k, map(m).get(k));
        else if (hit !== false) throw runtimeError(`Data type incorrect: ${typeName(hit)} (expecting bool)`, pos);
      }
      return out;
    }),
  );
}

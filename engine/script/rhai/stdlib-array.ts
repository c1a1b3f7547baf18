/**
 * Array functions. Arrays are JS arrays mutated in place; callbacks take (item) or (item, index).
 */
import { normIndex } from './access.js';
import { runtimeError, type Pos } from './errors.js';
import type { NativeRegistry } from './natives.js';
import { eq } from './ops.js';
import type { Run } from './runtime.js';
import { type FnPtr, compareValues, display, isInt, typeName, type Int, type Value } from './values.js';
import { callback } from './stdlib-core.js';
import { fresh, grows } from './memory.js';

const arr = (v: Value): Value[] => v as Value[];

function bool(v: Value, pos: Pos): boolean {
  if (typeof v !== 'boolean') throw runtimeError(`Data type incorrect: ${typeName(v)} (expecting bool)`, pos);
  return v;
}

/** (start, len) → [from, to) clamped, negative start counting from the end. */
function span(len: number, start: number, count: number): [number, number] {
  let s = start < 0 ? Math.max(0, len + start) : Math.min(start, len);
  if (s < 0) s = 0;
  return [s, count <= 0 ? s : Math.min(len, s + count)];
}

function rangeSpan(len: number, rg: Value): [number, number] {
  const g = rg as { start: Int; end: Int; inclusive: boolean };
  const s = Math.min(Math.max(0, Number(g.start)), len);
  const e = Math.min(Math.max(s, Number(g.end) + (g.inclusive ? 1 : 0)), len);
  return [s, e];
}

function sortValues(a: Value[], pos: Pos): void {
  a.sort((x, y) => {
    const c = compareValues(x, y);
    if (c === undefined) throw runtimeError(`Cannot compare ${typeName(x)} with ${typeName(y)} when sorting`, pos);
    return c;
  });
}

/** Removes (drain) or keeps (retain) the items a predicate selects; returns the removed ones. */
function partition(r: Run, a: Value[], fp: FnPtr, pos: Pos, removeMatching: boolean): Value[] {
  const kept: Value[] = [];
  const removed: Value[] = [];
  a.forEach((x, i) => {
    const hit = bool(callback(r, fp, x, i, pos), pos);
    (hit === removeMatching ? removed : kept).push(x);
  });
  a.length = 0;
  a.push(...kept);
  return removed;
}

/** `push(...b)` passes every element as an argument: a large `b` overflows the JS stack. */
function appendAll(a: Value[], b: Value[]): void {
  const n = b.length;
  for (let i = 0; i < n; i++) a.push(b[i]);
}

export function registerArray(n: NativeRegistry<Run>): void {
  n.add('len', ['array'], ([a]) => arr(a).length);
  n.add('get$len', ['array'], ([a]) => arr(a).length);
  n.add('is_empty', ['array'], ([a]) => arr(a).length === 0);
  n.add('get$is_empty', ['array'], ([a]) => arr(a).length === 0);

  n.add(
    'push',
    ['array', 'any'],
    grows(([a, x], r, pos) => (arr(a).push(x), r.checkArray(arr(a), pos), undefined)),
  );
  n.add(
    'append',
    ['array', 'array'],
    grows(([a, b], r, pos) => (appendAll(arr(a), arr(b)), r.checkArray(arr(a), pos), undefined)),
  );
  n.add(
    'insert',
    ['array', 'i64', 'any'],
    grows(([a, i, x], r, pos) => {
      const xs = arr(a);
      const k = Number(i) < 0 ? Math.max(0, xs.length + Number(i)) : Math.min(Number(i), xs.length);
      xs.splice(k, 0, x);
      r.checkArray(xs, pos);
      return undefined;
    }),
  );
  n.add('pop', ['array'], ([a]) => arr(a).pop());
  n.add('shift', ['array'], ([a]) => arr(a).shift());
  n.add('remove', ['array', 'i64'], ([a, i]) => {
    const xs = arr(a);
    const k = normIndex(i as Int, xs.length);
    return k < 0 ? undefined : xs.splice(k, 1)[0];
  });
  n.add('clear', ['array'], ([a]) => ((arr(a).length = 0), undefined));
  n.add('truncate', ['array', 'i64'], ([a, len]) => {
    const xs = arr(a);
    xs.length = Math.min(xs.length, Math.max(0, Number(len)));
    return undefined;
  });
  n.add('chop', ['array', 'i64'], ([a, len]) => {
    const xs = arr(a);
    const keep = Math.max(0, Number(len));
    if (xs.length > keep) xs.splice(0, xs.length - keep);
    return undefined;
  });
  n.add(
    'pad',
    ['array', 'i64', 'any'],
    grows(([a, len, x], r, pos) => {
      const xs = arr(a);
      r.checkAlloc('array', Number(len), pos);
      while (xs.length < Number(len)) xs.push(x);
      return undefined;
    }),
  );
  n.add(
    'split',
    ['array', 'i64'],
    fresh(([a, i]) => {
      const xs = arr(a);
      const k = Number(i) < 0 ? Math.max(0, xs.length + Number(i)) : Math.min(Number(i), xs.length);
      return xs.splice(k);
    }),
  );
  n.add('get', ['array', 'i64'], ([a, i]) => {
    const k = normIndex(i as Int, arr(a).length);
    return k < 0 ? undefined : arr(a)[k];
  });
  n.add('set', ['array', 'i64', 'any'], ([a, i, x]) => {
    const k = normIndex(i as Int, arr(a).length);
    if (k >= 0) arr(a)[k] = x;
    return undefined;
  });
  n.add('first', ['array'], ([a]) => arr(a)[0]);
  n.add('last', ['array'], ([a]) => arr(a)[arr(a).length - 1]);

  n.add(
    'extract',
    ['array', 'i64'],
    fresh(([a, s]) => {
      const [x, y] = span(arr(a).length, Number(s), arr(a).length);
      return arr(a).slice(x, y);
    }),
  );
  n.add(
    'extract',
    ['array', 'i64', 'i64'],
    fresh(([a, s, l]) => {
      const [x, y] = span(arr(a).length, Number(s), Number(l));
      return arr(a).slice(x, y);
    }),
  );
  n.add(
    'extract',
    ['array', 'range'],
    fresh(([a, rg]) => {
      const [x, y] = rangeSpan(arr(a).length, rg);
      return arr(a).slice(x, y);
    }),
  );
  n.add(
    'drain',
    ['array', 'Fn'],
    fresh(([a, fp], r, pos) => partition(r, arr(a), fp as FnPtr, pos, true)),
  );
  n.add('drain', ['array', 'i64', 'i64'], ([a, s, l]) => {
    const [x, y] = span(arr(a).length, Number(s), Number(l));
    return arr(a).splice(x, y - x);
  });
  n.add('drain', ['array', 'range'], ([a, rg]) => {
    const [x, y] = rangeSpan(arr(a).length, rg);
    return arr(a).splice(x, y - x);
  });
  n.add(
    'retain',
    ['array', 'Fn'],
    fresh(([a, fp], r, pos) => partition(r, arr(a), fp as FnPtr, pos, false)),
  );
  n.add(
    'retain',
    ['array', 'i64', 'i64'],
    fresh(([a, s, l]) => {
      const xs = arr(a);
      const [x, y] = span(xs.length, Number(s), Number(l));
      const removed = [...xs.slice(0, x), ...xs.slice(y)];
      xs.splice(y);
      xs.splice(0, x);
      return removed;
    }),
  );
  n.add(
    'retain',
    ['array', 'range'],
    fresh(([a, rg]) => {
      const xs = arr(a);
      const [x, y] = rangeSpan(xs.length, rg);
      const removed = [...xs.slice(0, x), ...xs.slice(y)];
      xs.splice(y);
      xs.splice(0, x);
      return removed;
    }),
  );
  n.add(
    'splice',
    ['array', 'i64', 'i64', 'array'],
    grows(([a, s, l, b], r, pos) => {
      const [x, y] = span(arr(a).length, Number(s), Number(l));
      arr(a).splice(x, y - x, ...arr(b));
      r.checkArray(arr(a), pos);
      return undefined;
    }),
  );

  n.add('contains', ['array', 'any'], ([a, x]) => arr(a).some((y) => eq(y, x)));
  n.add('index_of', ['array', 'Fn'], ([a, fp], r, pos) => arr(a).findIndex((x, i) => bool(callback(r, fp as FnPtr, x, i, pos), pos)));
  n.add('index_of', ['array', 'Fn', 'i64'], ([a, fp, from], r, pos) => {
    const xs = arr(a);
    for (let i = Math.max(0, Number(from) < 0 ? xs.length + Number(from) : Number(from)); i < xs.length; i++)
      if (bool(callback(r, fp as FnPtr, xs[i], i, pos), pos)) return i;
    return -1;
  });
  n.add('index_of', ['array', 'any'], ([a, x]) => arr(a).findIndex((y) => eq(y, x)));
  n.add('index_of', ['array', 'any', 'i64'], ([a, x, from]) => {
    const xs = arr(a);
    for (let i = Math.max(0, Number(from) < 0 ? xs.length + Number(from) : Number(from)); i < xs.length; i++) if (eq(xs[i], x)) return i;
    return -1;
  });
  n.add('find', ['array', 'Fn'], ([a, fp], r, pos) => arr(a).find((x, i) => bool(callback(r, fp as FnPtr, x, i, pos), pos)));
  n.add('find_map', ['array', 'Fn'], ([a, fp], r, pos) => {
    const xs = arr(a);
    for (let i = 0; i < xs.length; i++) {
      const v = callback(r, fp as FnPtr, xs[i], i, pos);
      if (v !== undefined) return v;
    }
    return undefined;
  });
  n.add(
    'filter',
    ['array', 'Fn'],
    fresh(([a, fp], r, pos) => arr(a).filter((x, i) => bool(callback(r, fp as FnPtr, x, i, pos), pos))),
  );
  n.add(
    'map',
    ['array', 'Fn'],
    fresh(([a, fp], r, pos) => arr(a).map((x, i) => callback(r, fp as FnPtr, x, i, pos))),
  );
  n.add('some', ['array', 'Fn'], ([a, fp], r, pos) => arr(a).some((x, i) => bool(callback(r, fp as FnPtr, x, i, pos), pos)));
  n.add('all', ['array', 'Fn'], ([a, fp], r, pos) => arr(a).every((x, i) => bool(callback(r, fp as FnPtr, x, i, pos), pos)));
  const reduce = (xs: Value[], fp: FnPtr, init: Value, r: Run, pos: Pos, rev: boolean): Value => {
    let acc = init;
    const arity = fp.target && fp.target.arity >= 0 ? fp.target.arity - fp.curried.length : 2;
    for (let k = 0; k < xs.length; k++) {
      const i = rev ? xs.length - 1 - k : k;
      acc = r.callPtr(fp, arity === 3 ? [acc, xs[i], i] : [acc, xs[i]], pos);
    }
    return acc;
  };
  n.add('reduce', ['array', 'Fn'], ([a, fp], r, pos) => reduce(arr(a), fp as FnPtr, undefined, r, pos, false));
  n.add('reduce', ['array', 'Fn', 'any'], ([a, fp, init], r, pos) => reduce(arr(a), fp as FnPtr, init, r, pos, false));
  n.add('reduce_rev', ['array', 'Fn'], ([a, fp], r, pos) => reduce(arr(a), fp as FnPtr, undefined, r, pos, true));
  n.add('reduce_rev', ['array', 'Fn', 'any'], ([a, fp, init], r, pos) => reduce(arr(a), fp as FnPtr, init, r, pos, true));

  n.add('sort', ['array'], ([a], _r, pos) => (sortValues(arr(a), pos), undefined));
  n.add('sort_desc', ['array'], ([a], _r, pos) => (sortValues(arr(a), pos), arr(a).reverse(), undefined));
  n.add('sort', ['array', 'Fn'], ([a, fp], r, pos) => {
    arr(a).sort((x, y) => {
      const c = r.callPtr(fp as FnPtr, [x, y], pos);
      if (!isInt(c)) throw runtimeError(`Data type incorrect: ${typeName(c)} (expecting i64)`, pos);
      return Number(c);
    });
    return undefined;
  });
  n.add('reverse', ['array'], ([a]) => (arr(a).reverse(), undefined));
  n.add('dedup', ['array'], ([a]) => {
    const xs = arr(a);
    const out = xs.filter((x, i) => i === 0 || !eq(xs[i - 1], x));
    xs.length = 0;
    xs.push(...out);
    return undefined;
  });
  n.add(
    'join',
    ['array', 'text'],
    fresh(([a, sep]) => arr(a).map(display).join(display(sep))),
  );
  n.add(
    'join',
    ['array'],
    fresh(([a]) => arr(a).map(display).join('')),
  );
}

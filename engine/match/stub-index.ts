/**
 * The stub set's candidate index. At compile time each stub contributes literal constraints that
 * are necessary for it to match (equals/deepEquals on method, path, header/query/form values;
 * startsWith and anchored `matches` prefixes on scalar fields), taken from top-level predicates and `and` lists. At request time a
 * bitset of candidates is built from hash lookups, so stubs that cannot match are never evaluated
 * (and never run their regexes). Stubs without constraints on a dimension stay candidates there.
 * Only predicates up to the first one that can throw contribute, so skipping never hides an error.
 */
import { PredicateError } from './errors.js';
import { normaliseValue } from './normalise.js';
import { operatorOf, settingsFor, type PredicateObject } from './options.js';
import { isScalarField, resolveField, type KeyedField, type RequestView, type ScalarField } from './request-view.js';
import { neverThrows } from './safety.js';
import { isObject } from './values.js';

type Reader = (view: RequestView) => string | readonly string[] | undefined;

interface Constraint {
  readonly dimension: string;
  readonly prefix: boolean;
  readonly read: Reader;
  readonly value: string;
}

/** One reader per field and case, shared by every stub's constraint (a closure per stub costs memory in every imposter). */
const scalarReaders = new Map<string, Reader>();

function scalarReader(field: ScalarField, lower: boolean): Reader {
  const key = `${field}|${lower}`;
  let reader = scalarReaders.get(key);
  if (reader === undefined) {
    reader = lower ? (view) => view.lowerScalar(field) : (view) => view.scalar(field);
    scalarReaders.set(key, reader);
  }
  return reader;
}

function keyedReader(field: KeyedField, name: string, keyLower: boolean, lower: boolean): Reader {
  return (view) => {
    let value: string | string[] | undefined;
    if (keyLower) {
      value = view.lowerKeyed(field)?.get(name);
    } else {
      const source = view.keyed(field);
      value = source && Object.hasOwn(source, name) ? source[name] : undefined;
    }
    if (value === undefined || !lower) return value;
    return typeof value === 'string' ? value.toLowerCase() : value.map((element) => String(element).toLowerCase());
  };
}

/** Constraints of one predicate; only shapes whose failure is certain from the literal are used. */
function collect(predicate: unknown, out: Map<string, Constraint>): void {
  let operator: string | undefined;
  try {
    operator = operatorOf(predicate);
  } catch {
    return;
  }
  const object = predicate as PredicateObject;
  if (operator === 'and') {
    if (Array.isArray(object.and)) for (const child of object.and) collect(child, out);
    return;
  }
  if (operator !== 'equals' && operator !== 'deepEquals' && operator !== 'startsWith' && operator !== 'matches') return;
  // Selectors replace the field value, except rewrites it, and `exists` changes how arrays match.
  if (object.jsonpath || object.xpath || object.except || object.exists) return;
  const settings = settingsFor(operator, object);
  const raw = object[operator];
  if (settings instanceof PredicateError || !isObject(raw) || Array.isArray(raw)) return;
  const add = (constraint: Constraint): void => {
    if (!out.has(constraint.dimension)) out.set(constraint.dimension, constraint);
  };
  if (operator === 'matches') {
    collectPatternPrefixes(raw as Record<string, unknown>, settings.regexFlags.includes('i'), settings.actual.keyLower, add);
    return;
  }
  const { lower, keyLower } = settings.actual;
  const expected = normaliseValue(raw, settings.expected, true) as Record<string, unknown>;
  for (const key of Object.keys(expected)) {
    const field = resolveField(key, keyLower);
    const value = expected[key];
    if (field === undefined || field === 'body') continue;
    if (isScalarField(field)) {
      if (typeof value !== 'string' || value === '') continue;
      const prefix = operator === 'startsWith';
      add({ dimension: `${prefix ? 'p' : 's'}|${field}|${lower}`, prefix, read: scalarReader(field, lower), value });
    } else if (operator !== 'startsWith' && isObject(value) && !Array.isArray(value)) {
      for (const name of Object.keys(value)) {
        const literal = (value as Record<string, unknown>)[name];
        if (typeof literal !== 'string' || literal === '') continue;
        add({
          dimension: `k|${field}|${keyLower}|${lower}|${name}`,
          prefix: false,
          read: keyedReader(field, name, keyLower, lower),
          value: literal,
        });
      }
    }
  }
}

/**
 * `matches` on a scalar field with an anchored pattern: the literal text the pattern starts with is a
 * prefix every matching value has, so it narrows like `startsWith`. Read from the pattern source only.
 * A case-insensitive pattern is compared lowercased, its prefix cut before any `s` or `k` (Unicode case
 * folding also matches ſ and K to them, which lowercasing the value would not).
 */
function collectPatternPrefixes(raw: Record<string, unknown>, caseless: boolean, keyLower: boolean, add: (constraint: Constraint) => void): void {
  for (const key of Object.keys(raw)) {
    const field = resolveField(keyLower ? key.toLowerCase() : key, keyLower);
    const pattern = raw[key];
    if (field === undefined || field === 'body' || !isScalarField(field) || typeof pattern !== 'string') continue;
    let prefix = literalPrefix(pattern);
    if (prefix !== undefined && caseless) prefix = prefix.toLowerCase().replace(/[sk].*$/, '');
    if (!prefix) continue;
    add({ dimension: `p|${field}|${caseless}`, prefix: true, read: scalarReader(field, caseless), value: prefix });
  }
}

const META = new Set(['^', '$', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|']);

/** The literal start of a `^`-anchored pattern without alternation (`^/api/users/\d+$` gives `/api/users/`), or undefined. */
export function literalPrefix(source: string): string | undefined {
  if (!source.startsWith('^') || source.includes('|')) return undefined;
  let out = '';
  for (let i = 1; i < source.length; i++) {
    let literal = source[i]!;
    if (literal === '\\') {
      const next = source[i + 1];
      // An escaped letter or digit is a class, a back-reference or a code point: the literal part ends.
      if (next === undefined || /[A-Za-z0-9]/.test(next)) break;
      literal = next;
      i++;
    } else if (META.has(literal)) {
      break;
    }
    const quantifier = source[i + 1];
    // A literal that may be absent or repeated is not part of every match.
    if (quantifier === '*' || quantifier === '?' || quantifier === '{') break;
    out += literal;
    if (quantifier === '+') break;
  }
  return out === '' ? undefined : out;
}

class Dimension {
  /** Stubs constrained to each value, ascending (sparse: a dense bitset per value costs O(values x stubs) to build). */
  readonly byValue = new Map<string, number[]>();
  /** Grows with the index (a larger copy); readers go only as far as their own bitset. */
  unconstrained: Uint32Array;
  /** Distinct prefix lengths, for prefix dimensions. */
  readonly lengths: number[] = [];

  constructor(
    readonly prefix: boolean,
    readonly read: Reader,
    all: Uint32Array,
  ) {
    this.unconstrained = all.slice();
  }

  constrain(stub: number, value: string): void {
    const stubs = this.byValue.get(value);
    if (stubs === undefined) {
      this.byValue.set(value, [stub]);
      if (this.prefix && !this.lengths.includes(value.length)) this.lengths.push(value.length);
    } else if (stubs[stubs.length - 1]! < stub) {
      stubs.push(stub);
    } else {
      // A stub inserted before later ones (StubIndex.splice): its place in stub order.
      let at = stubs.length;
      while (at > 0 && stubs[at - 1]! > stub) at--;
      if (stubs[at - 1] !== stub) stubs.splice(at, 0, stub);
    }
    this.unconstrained[stub >>> 5]! &= ~(1 << (stub & 31));
  }

  /** Undoes `constrain(stub, value)`: the stub is unconstrained here again until constrained anew. */
  release(stub: number, value: string): void {
    const stubs = this.byValue.get(value);
    const found = stubs === undefined ? -1 : stubs.indexOf(stub);
    if (found !== -1) stubs!.splice(found, 1);
    if (stubs?.length === 0) this.byValue.delete(value);
    this.unconstrained[stub >>> 5]! |= 1 << (stub & 31);
  }

  /** Drops the stubs `[at, end)` from the value lists and moves the later ones by `delta`. */
  remap(at: number, end: number, delta: number): void {
    for (const [value, stubs] of this.byValue) {
      let kept = 0;
      for (const stub of stubs) {
        if (stub < at) stubs[kept++] = stub;
        else if (stub >= end) stubs[kept++] = stub + delta;
      }
      stubs.length = kept;
      if (kept === 0) this.byValue.delete(value);
    }
  }

  /** Narrows `into` to the stubs this dimension allows for the request (`scratch`: a work bitset at least as long). */
  narrow(view: RequestView, into: Uint32Array, scratch: Uint32Array): void {
    const actual = this.read(view);
    const values = actual === undefined ? [] : typeof actual === 'string' ? [actual] : actual;
    const words = into.length;
    scratch.set(this.unconstrained.subarray(0, words));
    for (const value of values) {
      if (this.prefix) {
        for (const length of this.lengths) {
          if (length <= value.length) allow(scratch, this.byValue.get(value.slice(0, length)), words);
        }
      } else {
        allow(scratch, this.byValue.get(value), words);
      }
    }
    for (let w = 0; w < words; w++) into[w]! &= scratch[w]!;
  }
}

function allow(bits: Uint32Array, stubs: readonly number[] | undefined, words: number): void {
  if (stubs === undefined) return;
  for (const stub of stubs) {
    if (stub >>> 5 >= words) break;
    bits[stub >>> 5]! |= 1 << (stub & 31);
  }
}

/**
 * A stub's constraints depend on its predicates alone, so they are collected once per predicate list
 * (an admin edit then costs the stub it touches, not the whole set). Predicate lists are not changed
 * in place once compiled.
 */
const constraintCache = new WeakMap<object, readonly Constraint[]>();

function constraintsOf(predicates: unknown): readonly Constraint[] {
  if (!Array.isArray(predicates)) return [];
  const cached = constraintCache.get(predicates);
  if (cached) return cached;
  const constraints = new Map<string, Constraint>();
  // Stop at the first predicate that may throw: mountebank would evaluate it and answer 500.
  for (const predicate of predicates) {
    if (!neverThrows(predicate)) break;
    collect(predicate, constraints);
  }
  const found = [...constraints.values()];
  constraintCache.set(predicates, found);
  return found;
}

/** True when some stub of the list has an indexable constraint (else a linear scan is just as good). */
export function hasIndexableStub(stubPredicates: ReadonlyArray<unknown>): boolean {
  return stubPredicates.some((predicates) => constraintsOf(predicates).length > 0);
}

/**
 * Grows by appending stubs and never changes a stub already in it, so a matcher built on an earlier
 * size stays correct while later stubs are appended: it reads only its own stubs' bits.
 */
export class StubIndex {
  private readonly dimensions = new Map<string, Dimension>();
  private size = 0;
  /** Bumped by a splice: a matcher built before it cannot trust the positions. */
  version = 0;
  private all = new Uint32Array(0);
  private scratch = new Uint32Array(0);

  /** How many stubs it holds. */
  get length(): number {
    return this.size;
  }

  static build(stubPredicates: ReadonlyArray<unknown>): StubIndex {
    const index = new StubIndex();
    index.append(stubPredicates);
    return index;
  }

  /** Adds stubs after the last one. */
  append(stubPredicates: ReadonlyArray<unknown>): void {
    const size = this.size + stubPredicates.length;
    const words = (size + 31) >>> 5;
    if (words > this.all.length) {
      const capacity = Math.max(words, this.all.length * 2);
      this.all = grown(this.all, capacity);
      this.scratch = new Uint32Array(capacity);
      for (const dimension of this.dimensions.values()) dimension.unconstrained = grown(dimension.unconstrained, capacity);
    }
    for (let stub = this.size; stub < size; stub++) {
      const bit = 1 << (stub & 31);
      this.all[stub >>> 5]! |= bit;
      for (const dimension of this.dimensions.values()) dimension.unconstrained[stub >>> 5]! |= bit;
      this.constrain(stub, stubPredicates[stub - this.size]);
    }
    this.size = size;
  }

  /**
   * Replaces the stubs `[at, at + removed)` with `inserted` in place: later stubs shift, the lists stay in
   * stub order. Matchers built on the index before are told by `version` (they then scan every stub).
   */
  splice(at: number, removed: ReadonlyArray<unknown>, inserted: ReadonlyArray<unknown>): void {
    if (removed.length === inserted.length) {
      this.replace(at, removed, inserted);
      return;
    }
    const end = at + removed.length;
    const delta = inserted.length - removed.length;
    const size = this.size + delta;
    const capacity = Math.max((size + 31) >>> 5, this.all.length);
    const dimensions = [...this.dimensions.values()];
    this.all = splicedBits(this.all, this.size, at, end, delta, capacity);
    for (const dimension of dimensions) {
      dimension.remap(at, end, delta);
      dimension.unconstrained = splicedBits(dimension.unconstrained, this.size, at, end, delta, capacity);
    }
    if (this.scratch.length < capacity) this.scratch = new Uint32Array(capacity);
    this.size = size;
    this.version += 1;
    inserted.forEach((predicates, n) => {
      const stub = at + n;
      const bit = 1 << (stub & 31);
      this.all[stub >>> 5]! |= bit;
      for (const dimension of this.dimensions.values()) dimension.unconstrained[stub >>> 5]! |= bit;
      this.constrain(stub, predicates);
    });
  }

  /** `splice` where nothing moves: the removed stubs' values are dropped, their positions taken by the inserted ones. */
  private replace(at: number, removed: ReadonlyArray<unknown>, inserted: ReadonlyArray<unknown>): void {
    removed.forEach((predicates, n) => {
      const stub = at + n;
      for (const constraint of constraintsOf(predicates)) this.dimensions.get(constraint.dimension)?.release(stub, constraint.value);
    });
    this.version += 1;
    for (let n = 0; n < inserted.length; n++) this.constrain(at + n, inserted[n]);
  }

  private constrain(stub: number, predicates: unknown): void {
    for (const constraint of constraintsOf(predicates)) {
      let dimension = this.dimensions.get(constraint.dimension);
      if (dimension === undefined) {
        dimension = new Dimension(constraint.prefix, constraint.read, this.all);
        this.dimensions.set(constraint.dimension, dimension);
      }
      dimension.constrain(stub, constraint.value);
    }
  }

  /** Bitset of the first `size` stubs that may match the request. */
  candidates(view: RequestView, size: number): Uint32Array {
    const bits = this.all.slice(0, (size + 31) >>> 5);
    if (size & 31) bits[bits.length - 1]! &= (1 << (size & 31)) - 1;
    for (const dimension of this.dimensions.values()) dimension.narrow(view, bits, this.scratch);
    return bits;
  }
}

/** `bits` (of `size` stubs) without the bits `[at, end)`, later bits moved by `delta` (the inserted ones clear). */
function splicedBits(bits: Uint32Array, size: number, at: number, end: number, delta: number, words: number): Uint32Array<ArrayBuffer> {
  const out = new Uint32Array(words);
  out.set(bits.subarray(0, at >>> 5));
  for (let stub = at & ~31; stub < at; stub++) if (bits[stub >>> 5]! & (1 << (stub & 31))) out[stub >>> 5]! |= 1 << (stub & 31);
  for (let stub = end; stub < size; stub++) {
    if (bits[stub >>> 5]! & (1 << (stub & 31))) {
      const moved = stub + delta;
      out[moved >>> 5]! |= 1 << (moved & 31);
    }
  }
  return out;
}

function grown(bits: Uint32Array, words: number): Uint32Array<ArrayBuffer> {
  const out = new Uint32Array(words);
  out.set(bits);
  return out;
}

/** Next set bit at or after `from`, or -1. */
export function nextCandidate(bits: Uint32Array, from: number): number {
  let w = from >>> 5;
  if (w >= bits.length) return -1;
  let word = bits[w]! & (~0 << (from & 31));
  for (;;) {
    if (word !== 0) return (w << 5) + (31 - Math.clz32(word & -word));
    w++;
    if (w >= bits.length) return -1;
    word = bits[w]!;
  }
}

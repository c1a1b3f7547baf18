/**
 * The stub set's candidate index. At compile time each stub contributes literal constraints that
 * are necessary for it to match (equals/deepEquals on method, path, header/query/form values;
 * startsWith on scalar fields), taken from top-level predicates and `and` lists. At request time a
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

function scalarReader(field: ScalarField, lower: boolean): Reader {
  return (view) => (lower ? view.lowerScalar(field) : view.scalar(field));
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
  if (operator !== 'equals' && operator !== 'deepEquals' && operator !== 'startsWith') return;
  // Selectors replace the field value, except rewrites it, and `exists` changes how arrays match.
  if (object.jsonpath || object.xpath || object.except || object.exists) return;
  const settings = settingsFor(operator, object);
  const raw = object[operator];
  if (settings instanceof PredicateError || !isObject(raw) || Array.isArray(raw)) return;
  const { lower, keyLower } = settings.actual;
  const expected = normaliseValue(raw, settings.expected, true) as Record<string, unknown>;
  const add = (constraint: Constraint): void => {
    if (!out.has(constraint.dimension)) out.set(constraint.dimension, constraint);
  };
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

class Dimension {
  readonly byValue = new Map<string, Uint32Array>();
  readonly unconstrained: Uint32Array;
  /** Distinct prefix lengths, for prefix dimensions. */
  readonly lengths: number[] = [];

  constructor(
    readonly prefix: boolean,
    readonly read: Reader,
    words: number,
    size: number,
  ) {
    this.unconstrained = new Uint32Array(words);
    for (let i = 0; i < size; i++) this.unconstrained[i >>> 5]! |= 1 << (i & 31);
  }

  constrain(stub: number, value: string): void {
    let bits = this.byValue.get(value);
    if (bits === undefined) {
      bits = new Uint32Array(this.unconstrained.length);
      this.byValue.set(value, bits);
      if (this.prefix && !this.lengths.includes(value.length)) this.lengths.push(value.length);
    }
    bits[stub >>> 5]! |= 1 << (stub & 31);
    this.unconstrained[stub >>> 5]! &= ~(1 << (stub & 31));
  }

  /** Narrows `into` to the stubs this dimension allows for the request. */
  narrow(view: RequestView, into: Uint32Array): void {
    const actual = this.read(view);
    const values = actual === undefined ? [] : typeof actual === 'string' ? [actual] : actual;
    const hits: Uint32Array[] = [];
    for (const value of values) {
      if (this.prefix) {
        for (const length of this.lengths) {
          const bits = length <= value.length ? this.byValue.get(value.slice(0, length)) : undefined;
          if (bits) hits.push(bits);
        }
      } else {
        const bits = this.byValue.get(value);
        if (bits) hits.push(bits);
      }
    }
    const unconstrained = this.unconstrained;
    for (let w = 0; w < into.length; w++) {
      let allowed = unconstrained[w]!;
      for (const bits of hits) allowed |= bits[w]!;
      into[w]! &= allowed;
    }
  }
}

export class StubIndex {
  private readonly dimensions: Dimension[];
  private readonly words: number;
  private readonly all: Uint32Array;

  private constructor(dimensions: Dimension[], size: number) {
    this.dimensions = dimensions;
    this.words = (size + 31) >>> 5;
    this.all = new Uint32Array(this.words);
    for (let i = 0; i < size; i++) this.all[i >>> 5]! |= 1 << (i & 31);
  }

  /** undefined when no stub has an indexable constraint (a linear scan is then just as good). */
  static build(stubPredicates: ReadonlyArray<unknown>): StubIndex | undefined {
    const size = stubPredicates.length;
    const words = (size + 31) >>> 5;
    const dimensions = new Map<string, Dimension>();
    stubPredicates.forEach((predicates, stub) => {
      if (!Array.isArray(predicates)) return;
      const constraints = new Map<string, Constraint>();
      // Stop at the first predicate that may throw: mountebank would evaluate it and answer 500.
      for (const predicate of predicates) {
        if (!neverThrows(predicate)) break;
        collect(predicate, constraints);
      }
      for (const constraint of constraints.values()) {
        let dimension = dimensions.get(constraint.dimension);
        if (dimension === undefined) {
          dimension = new Dimension(constraint.prefix, constraint.read, words, size);
          dimensions.set(constraint.dimension, dimension);
        }
        dimension.constrain(stub, constraint.value);
      }
    });
    return dimensions.size === 0 ? undefined : new StubIndex([...dimensions.values()], size);
  }

  /** Bitset of the stubs that may match the request. */
  candidates(view: RequestView): Uint32Array {
    const bits = this.all.slice();
    for (const dimension of this.dimensions) dimension.narrow(view, bits);
    return bits;
  }
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

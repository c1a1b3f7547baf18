/**
 * The predicates a proxy records for a request, from its `predicateGenerators` (mountebank's
 * responseResolver): `matches: {field: true}` gives a deepEquals on the field, a nested object of
 * keys an equals on those keys; `jsonpath`/`xpath` select inside the field first; other generator
 * keys (caseSensitive, except, ...) are copied onto each predicate; `ignore` drops keys before a
 * deepEquals.
 */
import { isObject } from '../../model/index.js';
import { selectJsonPath, xpathValueSelector } from '../../match/index.js';

type Json = Record<string, unknown>;
type ValueOf = (field: unknown) => unknown;

const NOT_COPIED = new Set(['matches', 'predicateOperator', 'ignore']);

/** One selected node is itself, several an array, none an empty string. */
function selectionValue(nodes: unknown): unknown {
  if (nodes === undefined) return '';
  if (!Array.isArray(nodes)) return nodes;
  return nodes.length === 1 ? nodes[0] : nodes;
}

function valueOfFor(generator: Json): ValueOf {
  let valueAt: ValueOf = (field) => field;
  for (const key of Object.keys(generator)) {
    if (key === 'xpath' && isObject(generator.xpath)) {
      const spec = generator.xpath;
      const select = xpathValueSelector(spec.selector, isObject(spec.ns) ? (spec.ns as Record<string, string>) : {});
      valueAt = (field) => selectionValue(select(field as string));
    } else if (key === 'jsonpath' && isObject(generator.jsonpath)) {
      const selector = generator.jsonpath.selector;
      valueAt = (field) => selectionValue(selectJsonPath(selector, field));
    }
  }
  return valueAt;
}

/** mountebank's objFilter: removes the keys an `ignore` entry names (string, list, or nested object). */
function dropIgnored(target: unknown, filter: unknown): void {
  if (!isObject(target) && !Array.isArray(target)) return;
  const record = target as Json;
  if (typeof filter === 'string') {
    delete record[filter];
  } else if (Array.isArray(filter)) {
    for (const key of filter) if (record[key as string]) dropIgnored(record, key);
  } else if (isObject(filter)) {
    for (const key of Object.keys(filter)) if (record[key]) dropIgnored(record[key], filter[key]);
  }
}

/** JavaScript's object test as mountebank's helpers use it: arrays count. */
function isObjectLike(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function equalsFor(field: unknown, matchers: unknown, valueAt: ValueOf): Json {
  const result: Json = {};
  if (!isObjectLike(matchers)) return result;
  for (const key of Object.keys(matchers)) {
    const value = field === undefined || field === null ? undefined : (field as Json)[key];
    result[key] = isObjectLike(value) ? equalsFor(value, (matchers as Json)[key], valueAt) : valueAt(value);
  }
  return result;
}

/** `predicateOperator: exists`: the request with every leaf replaced by true (a structure of exists checks). */
function existsTree(node: unknown): unknown {
  if (!isObject(node) && !Array.isArray(node)) return true;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = existsTree(value);
  return out;
}

function fieldPredicates(request: Json, generator: Json): Json[] {
  const base: Json = {};
  for (const key of Object.keys(generator)) if (!NOT_COPIED.has(key)) base[key] = generator[key];
  const valueAt = valueOfFor(generator);
  const operator = generator.predicateOperator;
  const matches = isObject(generator.matches) ? generator.matches : {};
  return Object.keys(matches).map((fieldName) => {
    const predicate = structuredClone(base);
    const matcher = matches[fieldName];
    if (matcher === true && operator === undefined) {
      const field = request[fieldName];
      if (isObject(generator.ignore) && generator.ignore[fieldName] !== undefined) dropIgnored(field, generator.ignore[fieldName]);
      predicate.deepEquals = { [fieldName]: valueAt(field) };
    } else if (operator === 'exists') {
      predicate.exists = existsTree(request);
    } else if (operator !== undefined) {
      predicate[String(operator)] = valueAt(request);
    } else {
      predicate.equals = { [fieldName]: equalsFor(request[fieldName], matcher, valueAt) };
    }
    return predicate;
  });
}

/** Injected generators (`{inject}`) return their predicates from JavaScript; the caller runs them. */
export type InjectedGenerator = (source: string, request: Json) => Promise<unknown[]>;

/**
 * The predicates for `request`, which generators share and `ignore` edits in place, as in mountebank:
 * a key one generator ignores is gone from the values every generator recorded for that field.
 * The result is a detached JSON copy.
 */
export async function generatePredicates(request: Json, generators: unknown, inject: InjectedGenerator | undefined): Promise<Json[]> {
  const predicates: Json[] = [];
  if (!Array.isArray(generators)) return predicates;
  for (const generator of generators) {
    if (!isObject(generator)) continue;
    if (typeof generator.inject === 'string') {
      if (!inject) throw new Error('predicateGenerators with inject need the JavaScript engine');
      predicates.push(...((await inject(generator.inject, request)) as Json[]));
      continue;
    }
    predicates.push(...fieldPredicates(request, generator));
  }
  // A JSON copy, as mountebank stores stubs: keys whose value is undefined (a header the request lacks) vanish.
  return JSON.parse(JSON.stringify(predicates)) as Json[];
}

import { canonicalJson } from '../model/index.js';

/**
 * What stub analysis knows about one stub's predicates: simple string constraints it can reason
 * about (equals/startsWith/endsWith/contains on a request field, without jsonpath/xpath/except),
 * and everything else as opaque canonical keys that only an identical predicate implies.
 */
export type SimpleOperator = 'equals' | 'startsWith' | 'endsWith' | 'contains';

export interface Constraint {
  op: SimpleOperator;
  /** `path`, `method`, `body`... or `headers:<name>`, `query:<name>`, `form:<name>`. */
  field: string;
  /** Lowercased unless `caseSensitive` (mountebank compares both sides lowercased by default). */
  value: string;
  caseSensitive: boolean;
}

export interface PredicateFacts {
  constraints: Constraint[];
  opaque: string[];
}

const SIMPLE: readonly SimpleOperator[] = ['equals', 'startsWith', 'endsWith', 'contains'];
const SCALAR_FIELDS = new Set(['method', 'path', 'body', 'requestFrom', 'ip']);
const MAP_FIELDS = new Set(['headers', 'query', 'form']);
const PARAMETERS = new Set(['caseSensitive', 'keyCaseSensitive']);

function scalar(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

/** Constraints of one simple predicate, or undefined when it is beyond this analysis. */
function constraintsOf(predicate: Record<string, unknown>): Constraint[] | undefined {
  const keys = Object.keys(predicate);
  const operators = keys.filter((k) => !PARAMETERS.has(k));
  if (operators.length !== 1) return undefined;
  const op = operators[0] as SimpleOperator;
  if (!SIMPLE.includes(op)) return undefined;
  const operand = predicate[op];
  if (typeof operand !== 'object' || operand === null || Array.isArray(operand)) return undefined;
  const caseSensitive = predicate.caseSensitive === true;
  const keyCaseSensitive = predicate.keyCaseSensitive === true;
  const norm = (text: string) => (caseSensitive ? text : text.toLowerCase());
  const out: Constraint[] = [];
  for (const [field, expected] of Object.entries(operand)) {
    if (SCALAR_FIELDS.has(field)) {
      const text = scalar(expected);
      if (text === undefined) return undefined;
      out.push({ op, field, value: norm(text), caseSensitive });
    } else if (MAP_FIELDS.has(field) && typeof expected === 'object' && expected !== null && !Array.isArray(expected)) {
      for (const [name, value] of Object.entries(expected)) {
        const text = scalar(value);
        if (text === undefined) return undefined;
        const key = field === 'headers' || !keyCaseSensitive ? name.toLowerCase() : name;
        out.push({ op, field: `${field}:${key}`, value: norm(text), caseSensitive });
      }
    } else {
      return undefined;
    }
  }
  return out;
}

export function factsOf(predicates: unknown): PredicateFacts {
  const facts: PredicateFacts = { constraints: [], opaque: [] };
  if (predicates === undefined || predicates === null) return facts;
  if (!Array.isArray(predicates)) {
    facts.opaque.push(canonicalJson(predicates));
    return facts;
  }
  for (const predicate of predicates) {
    const simple = typeof predicate === 'object' && predicate !== null ? constraintsOf(predicate as Record<string, unknown>) : undefined;
    if (simple) facts.constraints.push(...simple);
    else facts.opaque.push(canonicalJson(predicate));
  }
  return facts;
}

/** True when every request satisfying `narrow` also satisfies `wide` (same field and case mode). */
function implies(narrow: Constraint, wide: Constraint): boolean {
  if (narrow.field !== wide.field || narrow.caseSensitive !== wide.caseSensitive) return false;
  const n = narrow.value;
  const w = wide.value;
  switch (wide.op) {
    case 'equals':
      return narrow.op === 'equals' && n === w;
    case 'startsWith':
      return (narrow.op === 'equals' || narrow.op === 'startsWith') && n.startsWith(w);
    case 'endsWith':
      return (narrow.op === 'equals' || narrow.op === 'endsWith') && n.endsWith(w);
    case 'contains':
      return n.includes(w);
  }
}

/** True when every predicate of `earlier` is implied by the predicates of `later` (it matches all `later` matches). */
export function covers(earlier: PredicateFacts, later: PredicateFacts): boolean {
  for (const key of earlier.opaque) if (!later.opaque.includes(key)) return false;
  for (const wide of earlier.constraints) if (!later.constraints.some((narrow) => implies(narrow, wide))) return false;
  return true;
}

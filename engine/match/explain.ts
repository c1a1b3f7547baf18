/**
 * Per-predicate verdicts for verify's `closest`: which top-level predicates a request satisfies and
 * the request fields each one looked at.
 */
import type { MockRequest } from '../model/index.js';
import { compileNode, type CompiledNode } from './compile-predicate.js';
import { PredicateError } from './errors.js';
import { normaliseValue } from './normalise.js';
import { operatorOf, settingsFor, type PredicateObject } from './options.js';
import { REQUEST_FIELDS, RequestView, resolveField, type RequestField } from './request-view.js';
import type { MatchContext } from './types.js';

export interface PredicateVerdict {
  predicate: unknown;
  passed: boolean;
  /** The request fields the predicate reads, keyed by field name. */
  actual: Record<string, unknown>;
}

/** Request fields a predicate reads; `inject` sees the whole request. */
function fieldsOf(predicate: unknown, into: Set<RequestField>): void {
  let operator: string | undefined;
  try {
    operator = operatorOf(predicate);
  } catch {
    return;
  }
  if (operator === undefined) return;
  const object = predicate as PredicateObject;
  if (operator === 'inject') {
    for (const field of REQUEST_FIELDS) into.add(field);
  } else if (operator === 'not') {
    fieldsOf(object.not, into);
  } else if (operator === 'and' || operator === 'or') {
    if (Array.isArray(object[operator])) for (const child of object[operator] as unknown[]) fieldsOf(child, into);
  } else {
    const settings = settingsFor(operator, object);
    // A predicate whose settings are invalid throws when evaluated; it reads nothing.
    if (settings instanceof PredicateError) return;
    const expected = normaliseValue(object[operator], settings.expected, false);
    for (const key of Object.keys(Object(expected))) {
      const field = resolveField(key, settings.expected.keyLower);
      if (field !== undefined) into.add(field);
    }
  }
}

interface Explainer {
  readonly nodes: CompiledNode[];
  readonly fields: RequestField[][];
}

const cache = new WeakMap<ReadonlyArray<unknown>, Explainer>();

function explainerFor(predicates: ReadonlyArray<unknown>): Explainer {
  let explainer = cache.get(predicates);
  if (explainer === undefined) {
    explainer = {
      nodes: predicates.map(compileNode),
      fields: predicates.map((predicate) => {
        const fields = new Set<RequestField>();
        fieldsOf(predicate, fields);
        return REQUEST_FIELDS.filter((field) => fields.has(field));
      }),
    };
    cache.set(predicates, explainer);
  }
  return explainer;
}

/** Every predicate is evaluated (no short-circuit); compiled forms are cached per predicates array. */
export function explainPredicates(
  predicates: ReadonlyArray<unknown>,
  request: MockRequest,
  ctx: MatchContext,
): PredicateVerdict[] | Promise<PredicateVerdict[]> {
  const { nodes, fields } = explainerFor(predicates);
  const view = new RequestView(request);
  const results = nodes.map((node) => node.evaluate(view, ctx));
  const verdict = (passed: boolean, i: number): PredicateVerdict => {
    const actual: Record<string, unknown> = {};
    for (const field of fields[i]!) {
      if (request[field] !== undefined) actual[field] = request[field];
    }
    return { predicate: predicates[i], passed, actual };
  };
  if (results.every((result) => typeof result === 'boolean')) {
    return results.map((result, i) => verdict(result as boolean, i));
  }
  return Promise.all(results).then((values) => values.map((value, i) => verdict(Boolean(value), i)));
}

/**
 * Turns one mountebank predicate into a closure, once. Expected values are normalised, regexes
 * and selectors prepared here; evaluation only normalises the request fields the predicate names.
 * Anything mountebank would throw while evaluating (bad regex, missing operator...) becomes a
 * closure that throws the same way when reached, so validation can dry-run it like mountebank.
 */
import type { MockRequest } from '../model/index.js';
import { actualField, type ActualConfig } from './actual.js';
import { PredicateError } from './errors.js';
import { normaliseValue, tryJSON } from './normalise.js';
import { compilePattern, containsLeaf, endsWithLeaf, equalsLeaf, existsLeaf, matchesLeaf, startsWithLeaf, type Leaf } from './operators.js';
import { operatorOf, settingsFor, type PredicateObject, type PredicateSettings } from './options.js';
import { isScalarField, RequestView, resolveField, type RequestField } from './request-view.js';
import { fieldSatisfied, type SatisfyEnv } from './satisfy.js';
import { jsonPathSelector, xpathSelector, xpathSyntaxError, type Selector } from './selectors.js';
import type { CompiledPredicate, MatchContext } from './types.js';
import { canonical, forceStrings, isObject, jsString, LazyRecord, prop } from './values.js';

export type Evaluate = (view: RequestView, ctx: MatchContext) => boolean | Promise<boolean>;

export interface CompiledNode {
  /** Synchronous unless an `inject` hook answers with a Promise. */
  readonly evaluate: Evaluate;
}

type FieldCheck = (view: RequestView) => boolean;

const LEAVES: Record<string, Leaf> = {
  equals: equalsLeaf,
  contains: containsLeaf,
  startsWith: startsWithLeaf,
  endsWith: endsWithLeaf,
  exists: existsLeaf,
};

function throwing(error: Error): CompiledNode {
  return {
    evaluate: () => {
      throw error;
    },
  };
}

function syncNode(checks: FieldCheck[]): CompiledNode {
  if (checks.length === 1) {
    const only = checks[0]!;
    return { evaluate: (view) => only(view) };
  }
  return {
    evaluate: (view) => {
      for (const check of checks) if (!check(view)) return false;
      return true;
    },
  };
}

function expectedKeys(expected: unknown): string[] {
  return Object.keys(Object(expected));
}

/** The selector a jsonpath/xpath parameter installs on every request string, or an error to throw. */
function selectorFor(predicate: PredicateObject, settings: PredicateSettings, deep: boolean): Selector | undefined | PredicateError {
  if (predicate.jsonpath) {
    let selector = (Object(predicate.jsonpath) as Record<string, unknown>).selector;
    if (settings.lowerJsonPath) {
      if (typeof selector !== 'string') return new PredicateError('jsonpath predicate parameter needs a string selector', predicate.jsonpath);
      selector = selector.toLowerCase();
    }
    const json = settings.actual;
    // Predicates with the same normalisation share one parse of a request's text (RequestView.parsedOnce).
    const key = `json|${json.lower}|${json.keyLower}|${json.except ?? ''}|${deep}`;
    return jsonPathSelector(selector, (text) => tryJSON(text, json), deep, key);
  }
  if (predicate.xpath) {
    const config = Object(predicate.xpath) as Record<string, unknown>;
    let selector = config.selector;
    let ns = (config.ns || {}) as Record<string, string>;
    if (settings.lowerXPath) {
      if (typeof selector !== 'string') return new PredicateError('xpath predicate parameter needs a string selector', predicate.xpath);
      selector = selector.toLowerCase();
      const lowered: Record<string, string> = {};
      for (const prefix of Object.keys(ns)) {
        const uri = (ns as Record<string, unknown>)[prefix];
        if (typeof uri !== 'string' || typeof ns !== 'object') return new PredicateError('xpath namespaces must map prefixes to strings', ns);
        lowered[prefix] = uri.toLowerCase();
      }
      ns = lowered;
    }
    return xpathSyntaxError(selector) ?? xpathSelector(selector, ns);
  }
  return undefined;
}

function compileValueOperator(operator: string, predicate: PredicateObject): CompiledNode {
  const settings = settingsFor(operator, predicate);
  if (settings instanceof PredicateError) return throwing(settings);
  const deep = operator === 'deepEquals';
  const select = selectorFor(predicate, settings, deep);
  if (select instanceof PredicateError) return throwing(select);
  const raw = predicate[operator];
  if (raw === null && !deep) return throwing(new PredicateError(`${operator} predicate needs an object of request fields`, predicate));
  const config: ActualConfig = { ...settings.actual, select };
  const expected = normaliseValue(deep ? forceStrings(raw) : raw, settings.expected, true);
  const keys = expectedKeys(expected);
  const fields = keys.map((key) => resolveField(key, settings.actual.keyLower));
  if (deep) return syncNode(keys.map((key, i) => deepCheck(prop(expected, key), fields[i], config)));

  const leaf = operator === 'matches' ? matchesLeaf(leavesOf(expected), settings.regexFlags) : LEAVES[operator]!;
  const env: SatisfyEnv = { leaf, json: settings.actual, existsFlag: Boolean(predicate.exists) };
  return syncNode(
    keys.map((key, i) => {
      const field = fields[i];
      const value = prop(expected, key);
      if (select === undefined && field !== undefined && isScalarField(field) && !isObject(value)) {
        return scalarCheck(operator, value, field, config, leaf, settings.regexFlags);
      }
      return (view) => fieldSatisfied(value, actualField(view, field, config), expected as object, undefined, env);
    }),
  );
}

/** A plain string field against a primitive expectation: no JSON, no arrays, just the leaf. */
function scalarCheck(operator: string, expected: unknown, field: RequestField, config: ActualConfig, leaf: Leaf, flags: string): FieldCheck {
  const read = (view: RequestView): string => (actualField(view, field, config) as string | undefined) ?? '';
  if (operator === 'equals') {
    const text = jsString(expected);
    return (view) => read(view) === text;
  }
  if (operator === 'matches') {
    const regex = compilePattern(expected, flags);
    if (regex instanceof PredicateError) {
      return () => {
        throw regex;
      };
    }
    return (view) => regex.test(read(view));
  }
  return (view) => leaf(expected, read(view));
}

/** deepEquals compares stable JSON; an object expectation reads a string field as normalised JSON. */
function deepCheck(expected: unknown, field: RequestField | undefined, config: ActualConfig): FieldCheck {
  const want = canonical(expected);
  const objectExpected = isObject(expected);
  return (view) => {
    let actual = actualField(view, field, config);
    if (actual instanceof LazyRecord) actual = actual.materialize();
    if (objectExpected && typeof actual === 'string') {
      actual = normaliseValue(forceStrings(tryJSON(actual, config)), config, true);
    }
    return canonical(actual) === want;
  };
}

function* leavesOf(value: unknown): Iterable<unknown> {
  if (isObject(value)) {
    for (const key of Object.keys(value)) yield* leavesOf((value as Record<string, unknown>)[key]);
  } else {
    yield value;
  }
}

function compileNot(predicate: PredicateObject): CompiledNode {
  const child = compileNode(predicate.not);
  return {
    evaluate: (view, ctx) => {
      const result = child.evaluate(view, ctx);
      return typeof result === 'boolean' ? !result : result.then((value) => !value);
    },
  };
}

async function continueAll(
  children: CompiledNode[],
  from: number,
  pending: Promise<boolean>,
  view: RequestView,
  ctx: MatchContext,
  want: boolean,
): Promise<boolean> {
  if (Boolean(await pending) !== want) return !want;
  for (let i = from; i < children.length; i++) {
    if (Boolean(await children[i]!.evaluate(view, ctx)) !== want) return !want;
  }
  return want;
}

/** `and` stops at the first false, `or` at the first true; `want` is the value that continues. */
function compileSequence(operator: 'and' | 'or', predicate: PredicateObject): CompiledNode {
  const list = predicate[operator];
  if (!Array.isArray(list)) return throwing(new PredicateError(`${operator} predicate must be an array of predicates`, list));
  const children = list.map(compileNode);
  const want = operator === 'and';
  return {
    evaluate: (view, ctx) => {
      for (let i = 0; i < children.length; i++) {
        const result = children[i]!.evaluate(view, ctx);
        if (typeof result !== 'boolean') return continueAll(children, i + 1, result, view, ctx, want);
        if (result !== want) return !want;
      }
      return want;
    },
  };
}

function compileInject(predicate: PredicateObject): CompiledNode {
  const source = String(predicate.inject);
  return {
    evaluate: (view, ctx) => {
      if (view.dryRun) return true;
      if (!ctx.injectPredicate) throw new Error('injection not available');
      const result = ctx.injectPredicate(source, view.request);
      return typeof result === 'boolean' ? result : Promise.resolve(result).then(Boolean);
    },
  };
}

/** svc's script predicate `{"_svc": {"script": S}}` (docs/scripts.md `matches(ctx)`), run by the engine. */
function compileScriptPredicate(predicate: PredicateObject): CompiledNode {
  return {
    evaluate: (view, ctx) => {
      if (view.dryRun) return true;
      if (!ctx.scriptPredicate) throw new Error('_svc.script predicates are not available');
      return ctx.scriptPredicate(predicate, view.request);
    },
  };
}

export function compileNode(predicate: unknown): CompiledNode {
  let operator: string | undefined;
  try {
    operator = operatorOf(predicate);
  } catch (error) {
    return throwing(error as Error);
  }
  if (operator === undefined && typeof predicate === 'object' && (predicate as PredicateObject)._svc !== undefined) {
    return compileScriptPredicate(predicate as PredicateObject);
  }
  if (operator === undefined) return throwing(new PredicateError('missing predicate', predicate));
  const object = predicate as PredicateObject;
  switch (operator) {
    case 'not':
      return compileNot(object);
    case 'and':
    case 'or':
      return compileSequence(operator, object);
    case 'inject':
      return compileInject(object);
    default:
      return compileValueOperator(operator, object);
  }
}

export function compilePredicate(predicate: unknown): CompiledPredicate {
  const node = compileNode(predicate);
  return (request: MockRequest, ctx: MatchContext) => node.evaluate(new RequestView(request), ctx);
}

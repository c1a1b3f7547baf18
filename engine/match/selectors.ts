/**
 * jsonpath / xpath parameters: they replace each request string with what the selector picks
 * (one value, an array when several, undefined when none), exactly as mountebank's select() does.
 */
import { createRequire } from 'node:module';
import type * as JsonPathPlus from 'jsonpath-plus';
import type * as Xpath from 'xpath';
import type * as Xmldom from '@xmldom/xmldom';
import { PredicateError } from './errors.js';
import type { RequestView } from './request-view.js';
import { compileSimplePath } from './simple-xpath.js';
import { parseLightXml } from './xml-light.js';
import { forceStrings, isObject, sortedCopy } from './values.js';

// xpath and its DOM parser are required when the first xpath selector compiles (~70 + 30 ms at start-up otherwise),
// jsonpath-plus on the first jsonpath selection (~3 ms and a file read on every start otherwise).
const requireModule = createRequire(import.meta.url);
let jsonPathModule: typeof JsonPathPlus | undefined;
const jsonPathLibrary = () => (jsonPathModule ??= requireModule('jsonpath-plus') as typeof JsonPathPlus);
let xpathModule: typeof Xpath | undefined;
let xmldomModule: typeof Xmldom | undefined;
const xpathLibrary = () => (xpathModule ??= requireModule('xpath') as typeof Xpath);
const xmlParser = () => (xmldomModule ??= requireModule('@xmldom/xmldom') as typeof Xmldom).DOMParser;

/** `view`: the request being matched, whose memo lets every selector of the request share one parse of a text. */
export type Selector = (text: string, view?: RequestView) => unknown;

/** One match becomes a scalar, several an order-independent array (mountebank's select + orderIndependent). */
function collapse(values: unknown): unknown {
  const single = values !== undefined && values !== null && (values as { length?: unknown }).length === 1;
  const picked = single ? (values as ArrayLike<unknown>)[0] : values;
  return Array.isArray(picked) ? sortedCopy(picked) : picked;
}

type JsonPathCall = (path: unknown, json: unknown) => unknown;

const hasOwn = Object.prototype.hasOwnProperty;

/** `$.a.b[0]`: names and indexes only, none of jsonpath-plus's operators (`*`, `..`, `@`, `,`, `:`, `?(`, `~`, `^`, `` ` ``). */
const PLAIN_PATH = /^\$((\.[A-Za-z_][A-Za-z0-9_]*)|\[\d+\])*$/;

/**
 * jsonpath-plus's walk for a plain path, compiled once: each step follows an own property of a truthy
 * value (its `_trace`: `val && hasOwnProp.call(val, loc)`), so a missing step selects nothing.
 */
function plainPathWalker(selector: string): ((json: unknown) => unknown[]) | undefined {
  if (!PLAIN_PATH.test(selector)) return undefined;
  const steps = selector
    .slice(1)
    .split(/[.[\]]/)
    .filter((step) => step !== '');
  return (json) => {
    let value = json;
    for (const step of steps) {
      if (!value || !hasOwn.call(value, step)) return [];
      value = (value as Record<string, unknown>)[step];
    }
    return [value];
  };
}

/** mountebank's jsonpath.select: every match (uncollapsed), undefined for none or unparsable JSON. */
export function selectJsonPath(selector: unknown, possibleJSON: unknown): unknown {
  return selectWith((json) => (jsonPathLibrary().JSONPath as unknown as JsonPathCall)(selector, json), possibleJSON);
}

function selectWith(select: (json: unknown) => unknown, possibleJSON: unknown): unknown {
  try {
    const json = isObject(possibleJSON) ? possibleJSON : JSON.parse(possibleJSON as string);
    const result = select(json) as { length: number } | string | undefined;
    if (result === undefined) return undefined;
    return typeof result === 'string' || result.length !== 0 ? result : undefined;
  } catch {
    return undefined;
  }
}

/** `selectJsonPath` with the selector compiled: a plain path walks the value itself, anything else goes to jsonpath-plus. */
function compiledJsonPath(selector: unknown): (possibleJSON: unknown) => unknown {
  const walk = typeof selector === 'string' ? plainPathWalker(selector) : undefined;
  // jsonpath-plus answers a falsy document with undefined.
  if (walk) return (possibleJSON) => selectWith((json) => (json ? walk(json) : undefined), possibleJSON);
  return (possibleJSON) => selectJsonPath(selector, possibleJSON);
}

/**
 * `parse` is tryJSON bound to the predicate's normalisation; `stringify` is deepEquals' forceStrings;
 * `memoKey` names both, so predicates with the same ones parse a request's text once.
 */
export function jsonPathSelector(selector: unknown, parse: (text: string) => unknown, stringify: boolean, memoKey: string): Selector {
  const prepare = (text: string): unknown => {
    const possibleJSON = parse(text);
    return stringify ? forceStrings(possibleJSON) : possibleJSON;
  };
  const select = compiledJsonPath(selector);
  return (text, view) => collapse(select(view ? view.parsedOnce(memoKey, text, prepare) : prepare(text)));
}

interface XNode {
  nodeType: number;
  nodeValue?: unknown;
  value?: unknown;
  data?: unknown;
  firstChild?: { data?: unknown } | null;
}

const TEXT_NODE = 3;
const ATTRIBUTE_NODE = 2;

function nodeValue(node: XNode): unknown {
  if (node.nodeType === TEXT_NODE) return node.nodeValue;
  if (node.nodeType === ATTRIBUTE_NODE) return node.value;
  // String() keeps empty elements selectable by `exists`, as in mountebank ('undefined').
  if (node.firstChild) return String(node.firstChild.data);
  return String(node.data);
}

const MALFORMED = 'malformed xpath predicate selector';

/** Fails at compile time for selectors xpath cannot parse: mountebank rejects those on every request. */
export function xpathSyntaxError(selector: unknown): PredicateError | undefined {
  if (typeof selector !== 'string') return undefined;
  try {
    (xpathLibrary() as unknown as { parse(expr: string): unknown }).parse(selector);
    return undefined;
  } catch {
    return new PredicateError(MALFORMED, selector);
  }
}

export function xpathSelector(selector: unknown, ns: Record<string, string>): Selector {
  const values = xpathValueSelector(selector, ns);
  return (text, view) => collapse(values(text, view));
}

interface XpathInternals {
  XPathParser: new () => { parse(expression: string): { evaluate(context: unknown): unknown } };
  XPathContext: new () => Record<string, unknown>;
  XPathResult: {
    new (value: unknown, type: number): Record<string, unknown>;
    ANY_TYPE: number;
    STRING_TYPE: number;
    NUMBER_TYPE: number;
    BOOLEAN_TYPE: number;
  };
}

/**
 * A request text as xmldom parses it (undefined when it cannot), with HTML detection off as mountebank
 * has it (xpath treats documents claiming HTML 2.0 case-insensitively); parsed once per request.
 */
function parseXml(text: string): { doc: unknown; html: boolean } {
  const DOMParser = xmlParser();
  const doc = new DOMParser({ errorHandler: () => undefined }).parseFromString(text, 'text/xml') as unknown;
  const impl = (doc as { implementation?: { hasFeature: (f: string, v: string) => boolean } } | undefined)?.implementation;
  if (impl) {
    const original = impl.hasFeature.bind(impl);
    impl.hasFeature = (feature, version) => (feature === 'HTML' && version === '2.0' ? false : original(feature, version));
  }
  // What xpath's select() decides per call: a document whose hasFeature throws or is missing counts as HTML.
  let html: boolean;
  try {
    html = (doc as { implementation: { hasFeature: (f: string, v: string) => boolean } }).implementation.hasFeature('HTML', '2.0');
  } catch {
    html = true;
  }
  return { doc, html };
}

/**
 * xpath's `useNamespaces(ns)(selector, doc)` with the expression parsed once: the same context (a
 * resolver that answers the map's entry and nothing else) and the same result conversion.
 */
function compiledXpath(selector: unknown, ns: Record<string, string>): (doc: unknown, html: boolean) => unknown {
  const library = xpathLibrary() as unknown as XpathInternals;
  const expression = new library.XPathParser().parse(selector as string);
  const namespaces = { getNamespace: (prefix: string) => ns[prefix] };
  return (doc, html) => {
    const context = new library.XPathContext();
    context.namespaceResolver = namespaces;
    context.expressionContextNode = doc;
    context.caseInsensitive = html;
    const result = new library.XPathResult(expression.evaluate(context), library.XPathResult.ANY_TYPE);
    if (result.resultType === library.XPathResult.STRING_TYPE) return result.stringValue;
    if (result.resultType === library.XPathResult.NUMBER_TYPE) return result.numberValue;
    if (result.resultType === library.XPathResult.BOOLEAN_TYPE) return result.booleanValue;
    return result.nodes;
  };
}

/**
 * mountebank's xpath.select: the selected node values (uncollapsed, undefined for none), or the
 * number/boolean an expression evaluates to; a malformed selector throws a PredicateError.
 */
export function xpathValueSelector(selector: unknown, ns: Record<string, string>): Selector {
  let select: ((doc: unknown, html: boolean) => unknown) | PredicateError;
  try {
    select = compiledXpath(selector, ns);
  } catch {
    select = new PredicateError(MALFORMED, selector);
  }
  // Plain location paths over the light tree when the document fits it; xmldom and xpath otherwise.
  const simple = select instanceof PredicateError ? undefined : compileSimplePath(selector, ns);
  const full = (text: string, view: RequestView | undefined): unknown => {
    const { doc, html } = view ? view.parsedOnce('xml', text, parseXml) : parseXml(text);
    let result: unknown;
    if (doc === undefined) {
      result = [];
    } else {
      if (select instanceof PredicateError) throw select;
      try {
        result = select(doc, html);
      } catch {
        throw new PredicateError(MALFORMED, selector);
      }
    }
    if (typeof result === 'number' || typeof result === 'boolean') return result;
    if (!Array.isArray(result)) throw new PredicateError('xpath selector must select nodes, a number or a boolean', selector);
    const values = result.map((node) => nodeValue(node as XNode));
    return values.length === 0 ? undefined : values;
  };
  if (!simple) return full;
  return (text, view) => {
    const light = view ? view.parsedOnce('xml-light', text, parseLightXml) : parseLightXml(text);
    const values = light === undefined ? 'fallback' : simple(light);
    if (values === 'fallback') return full(text, view);
    return values.length === 0 ? undefined : values;
  };
}

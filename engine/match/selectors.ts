/**
 * jsonpath / xpath parameters: they replace each request string with what the selector picks
 * (one value, an array when several, undefined when none), exactly as mountebank's select() does.
 */
import { createRequire } from 'node:module';
import type * as JsonPathPlus from 'jsonpath-plus';
import type * as Xpath from 'xpath';
import type * as Xmldom from '@xmldom/xmldom';
import { PredicateError } from './errors.js';
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

export type Selector = (text: string) => unknown;

/** One match becomes a scalar, several an order-independent array (mountebank's select + orderIndependent). */
function collapse(values: unknown): unknown {
  const single = values !== undefined && values !== null && (values as { length?: unknown }).length === 1;
  const picked = single ? (values as ArrayLike<unknown>)[0] : values;
  return Array.isArray(picked) ? sortedCopy(picked) : picked;
}

type JsonPathCall = (path: unknown, json: unknown) => unknown;

/** mountebank's jsonpath.select: every match (uncollapsed), undefined for none or unparsable JSON. */
export function selectJsonPath(selector: unknown, possibleJSON: unknown): unknown {
  const { JSONPath } = jsonPathLibrary();
  try {
    const json = isObject(possibleJSON) ? possibleJSON : JSON.parse(possibleJSON as string);
    const result = (JSONPath as unknown as JsonPathCall)(selector, json) as { length: number } | string;
    return typeof result === 'string' || result.length !== 0 ? result : undefined;
  } catch {
    return undefined;
  }
}

/** `parse` is tryJSON bound to the predicate's normalisation; `stringify` is deepEquals' forceStrings. */
export function jsonPathSelector(selector: unknown, parse: (text: string) => unknown, stringify: boolean): Selector {
  return (text) => {
    let possibleJSON = parse(text);
    if (stringify) possibleJSON = forceStrings(possibleJSON);
    return collapse(selectJsonPath(selector, possibleJSON));
  };
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
  return (text) => collapse(values(text));
}

/**
 * mountebank's xpath.select: the selected node values (uncollapsed, undefined for none), or the
 * number/boolean an expression evaluates to; a malformed selector throws a PredicateError.
 */
export function xpathValueSelector(selector: unknown, ns: Record<string, string>): Selector {
  const select = xpathLibrary().useNamespaces(ns) as unknown as (expr: unknown, doc: unknown) => unknown;
  const DOMParser = xmlParser();
  return (text) => {
    const doc = new DOMParser({ errorHandler: () => undefined }).parseFromString(text, 'text/xml') as unknown;
    let result: unknown;
    if (doc === undefined) {
      result = [];
    } else {
      // xpath treats documents claiming HTML 2.0 case-insensitively; mountebank switches that off.
      const impl = (doc as { implementation?: { hasFeature: (f: string, v: string) => boolean } }).implementation;
      if (impl) {
        const original = impl.hasFeature.bind(impl);
        impl.hasFeature = (feature, version) => (feature === 'HTML' && version === '2.0' ? false : original(feature, version));
      }
      try {
        result = select(selector, doc);
      } catch {
        throw new PredicateError(MALFORMED, selector);
      }
    }
    if (typeof result === 'number' || typeof result === 'boolean') return result;
    if (!Array.isArray(result)) throw new PredicateError('xpath selector must select nodes, a number or a boolean', selector);
    const values = result.map((node) => nodeValue(node as XNode));
    return values.length === 0 ? undefined : values;
  };
}

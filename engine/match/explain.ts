/**
 * Per-predicate verdicts for verify's `closest` (which top-level predicates a request satisfies and the
 * request fields each one looked at), and the dashboard's near-miss report: per stub, each failing
 * predicate's fields with the expected and the actual value.
 */
import type { MockRequest } from '../model/index.js';
import { compileNode, type CompiledNode } from './compile-predicate.js';
import { PredicateError } from './errors.js';
import { normaliseValue } from './normalise.js';
import { operatorOf, settingsFor, type PredicateObject } from './options.js';
import { REQUEST_FIELDS, RequestView, resolveField, type RequestField } from './request-view.js';
import { selectJsonPath, xpathValueSelector } from './selectors.js';
import type { Eligibility, MatchContext } from './types.js';
import { errorText } from '../model/index.js';

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

/** One request field a failing predicate compared: what the stub expected and what the request had. */
export interface FieldMismatch {
  operator: string;
  /** `path`, `query.q`, `headers.Accept`, `body`… as written in the predicate. */
  field: string;
  expected: unknown;
  /** The request's value (absent when the request has no such field or key). */
  actual?: unknown;
  /** What a jsonpath/xpath parameter picked out of `actual`. */
  selected?: unknown;
  selector?: string;
}

/** A top-level predicate of a stub against one request. */
export interface PredicateCheck {
  index: number;
  passed: boolean;
  mismatches: FieldMismatch[];
  /** The predicate threw (bad regex, script failure). */
  error?: string;
}

/** A stub as a candidate for one request: how many predicates it satisfies and why the others fail. */
export interface StubExplanation {
  index: number;
  id?: string;
  eligibility: Eligibility;
  satisfied: number;
  total: number;
  failed: PredicateCheck[];
}

const KEYED = new Set(['query', 'headers', 'form']);
const VALUE_OPERATORS = new Set(['equals', 'deepEquals', 'contains', 'startsWith', 'endsWith', 'matches', 'exists']);

interface SplitCheck {
  node: CompiledNode;
  operator: string;
  field: string;
  expected: unknown;
  read: (request: MockRequest) => unknown;
}

/** A map value by key, folding case unless the predicate says keys are case-sensitive. */
function keyedValue(map: unknown, key: string, keyLower: boolean): unknown {
  if (map === null || typeof map !== 'object') return undefined;
  const record = map as Record<string, unknown>;
  if (Object.hasOwn(record, key)) return record[key];
  if (!keyLower) return undefined;
  const wanted = key.toLowerCase();
  const found = Object.keys(record).find((name) => name.toLowerCase() === wanted);
  return found === undefined ? undefined : record[found];
}

/** A value operator split into one check per field (and per query/header key), so each mismatch is named. */
function splitValuePredicate(operator: string, predicate: PredicateObject): SplitCheck[] {
  const settings = settingsFor(operator, predicate);
  if (settings instanceof PredicateError) return [];
  const keyLower = settings.actual.keyLower;
  const params: PredicateObject = { ...predicate };
  for (const name of Object.keys(params)) if (OPERATOR_NAMES.has(name)) delete params[name];
  const argument = predicate[operator];
  if (argument === null || typeof argument !== 'object') return [];
  const checks: SplitCheck[] = [];
  for (const [key, expected] of Object.entries(argument as Record<string, unknown>)) {
    const field = resolveField(keyLower ? key.toLowerCase() : key, keyLower);
    const read = (request: MockRequest): unknown => (field === undefined ? undefined : request[field]);
    if (operator !== 'deepEquals' && field !== undefined && KEYED.has(field) && expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
      for (const [name, value] of Object.entries(expected as Record<string, unknown>)) {
        checks.push({
          node: compileNode({ ...params, [operator]: { [key]: { [name]: value } } }),
          operator,
          field: `${key}.${name}`,
          expected: value,
          read: (request) => keyedValue(request[field], name, keyLower),
        });
      }
    } else {
      checks.push({ node: compileNode({ ...params, [operator]: { [key]: expected } }), operator, field: key, expected, read });
    }
  }
  return checks;
}

const OPERATOR_NAMES = new Set([...VALUE_OPERATORS, 'and', 'or', 'not', 'inject']);
const splitCache = new WeakMap<object, SplitCheck[]>();

function selectionOf(predicate: PredicateObject, actual: unknown): Pick<FieldMismatch, 'selected' | 'selector'> {
  if (typeof actual !== 'string') return {};
  try {
    if (isRecord(predicate.jsonpath)) {
      const selector = String(predicate.jsonpath.selector);
      const picked = selectJsonPath(selector, actual);
      return { selector: `jsonpath ${selector}`, selected: Array.isArray(picked) && picked.length === 1 ? picked[0] : picked };
    }
    if (isRecord(predicate.xpath)) {
      const selector = String(predicate.xpath.selector);
      const ns = (isRecord(predicate.xpath.ns) ? predicate.xpath.ns : {}) as Record<string, string>;
      return { selector: `xpath ${selector}`, selected: xpathValueSelector(selector, ns)(actual) };
    }
  } catch {
    // A selector that cannot run shows no selection; the check itself reports the error.
  }
  return {};
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function mismatch(check: SplitCheck, predicate: PredicateObject, request: MockRequest, operator = check.operator): FieldMismatch {
  const actual = check.read(request);
  const out: FieldMismatch = { operator, field: check.field, expected: check.expected };
  if (actual !== undefined) out.actual = actual;
  return { ...out, ...selectionOf(predicate, actual) };
}

/** The mismatches that make `predicate` false for `request` (empty when it holds); `holds` says which. */
async function mismatchesOf(predicate: unknown, view: RequestView, ctx: MatchContext): Promise<{ holds: boolean; mismatches: FieldMismatch[] }> {
  const holds = Boolean(await compileNode(predicate).evaluate(view, ctx));
  if (holds || !isRecord(predicate)) return { holds, mismatches: [] };
  const operator = operatorOf(predicate);
  if (operator === 'and' || operator === 'or') {
    const children = Array.isArray(predicate[operator]) ? (predicate[operator] as unknown[]) : [];
    const mismatches: FieldMismatch[] = [];
    for (const child of children) mismatches.push(...(await mismatchesOf(child, view, ctx)).mismatches);
    return { holds, mismatches };
  }
  if (operator === 'not') {
    // The inner predicate held: show the fields it matched, each under `not`.
    const inner = predicate.not;
    const innerOperator = isRecord(inner) ? operatorOf(inner) : undefined;
    const checks = innerOperator && VALUE_OPERATORS.has(innerOperator) ? splitValuePredicate(innerOperator, inner as PredicateObject) : [];
    const matched: FieldMismatch[] = [];
    for (const check of checks) {
      if (await check.node.evaluate(view, ctx)) matched.push(mismatch(check, inner as PredicateObject, view.request, `not ${innerOperator}`));
    }
    return { holds, mismatches: matched.length > 0 ? matched : [{ operator: 'not', field: '', expected: inner }] };
  }
  if (operator === undefined || !VALUE_OPERATORS.has(operator)) {
    return { holds, mismatches: [{ operator: operator ?? '_svc.script', field: '', expected: 'the script to return true', actual: false }] };
  }
  let checks = splitCache.get(predicate);
  if (checks === undefined) {
    checks = splitValuePredicate(operator, predicate);
    splitCache.set(predicate, checks);
  }
  const mismatches: FieldMismatch[] = [];
  for (const check of checks) {
    if (!(await check.node.evaluate(view, ctx))) mismatches.push(mismatch(check, predicate, view.request));
  }
  return { holds, mismatches };
}

/** Every top-level predicate of a stub, each with the fields it failed on. */
export async function checkPredicates(predicates: ReadonlyArray<unknown>, request: MockRequest, ctx: MatchContext): Promise<PredicateCheck[]> {
  const view = new RequestView(request);
  const checks: PredicateCheck[] = [];
  for (let index = 0; index < predicates.length; index += 1) {
    try {
      const { holds, mismatches } = await mismatchesOf(predicates[index], view, ctx);
      checks.push({ index, passed: holds, mismatches });
    } catch (err) {
      checks.push({ index, passed: false, mismatches: [], error: errorText(err) });
    }
  }
  return checks;
}

/**
 * Each stub as a candidate for `request`, closest first: most predicates satisfied (verify's `closest`
 * measure), ties in stub order. A stub gated out by space or scenario state keeps its verdicts, so the
 * page can say "would match, but the scenario is elsewhere".
 */
export async function explainStubs(stubs: ReadonlyArray<Record<string, unknown>>, request: MockRequest, ctx: MatchContext): Promise<StubExplanation[]> {
  const out: StubExplanation[] = [];
  for (let index = 0; index < stubs.length; index += 1) {
    const stub = stubs[index]!;
    const predicates = Array.isArray(stub.predicates) ? stub.predicates : [];
    const checks = await checkPredicates(predicates, request, ctx);
    out.push({
      index,
      ...(typeof stub.id === 'string' ? { id: stub.id } : {}),
      eligibility: ctx.isEligible?.(index) ?? 'ok',
      satisfied: checks.filter((check) => check.passed).length,
      total: checks.length,
      failed: checks.filter((check) => !check.passed),
    });
  }
  return out.sort((a, b) => b.satisfied - a.satisfied || a.index - b.index);
}

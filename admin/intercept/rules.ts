/**
 * Intercept rules (docs/intercept.md; the fields are svc's design, documented in the README):
 *
 * ```json
 * { "id": "optional string",
 *   "match": { "host": "api.example.com" | "*.example.com", "method": "GET",
 *              "path": "/exact" | "pathPrefix": "/v1/", "headers": { "x-name": "value" } },
 *   "serve": { "statusCode": 200, "headers": { ... }, "body": <any JSON> }
 *   | "forward": { "port": 4545, "protocol": "http" | "https" }
 *   | "inject": "function (request) { return { statusCode, headers, body }; }" }
 * ```
 *
 * Validated at the edge into `InterceptRule`; the first stored rule that matches wins. `inject` is
 * scripted: it needs injection permission where the caller is gated (the admin plane).
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { injectionMessages, isObject } from '../../engine/model/index.js';
import { interceptErrors } from './errors.js';

/** Rules one intercept session stores at most; more is a 429 (docs/limits.md leaves the value open). */
export const RULE_CAPACITY = 1000;

export interface RuleMatch {
  /** Lowercased; a leading `*.` matches any subdomain (not the bare domain). */
  host?: string;
  /** Uppercased. */
  method?: string;
  path?: string;
  pathPrefix?: string;
  /** Lowercased names; values compared exactly. */
  headers?: Record<string, string>;
}

export interface ServeAction {
  statusCode: number;
  headers: Record<string, string | string[]>;
  /** The body as sent: a string as given, any other JSON value serialised. */
  body: string;
  /** The body as configured, echoed back by the rule listing. */
  configuredBody: unknown;
}

export interface ForwardAction {
  port: number;
  /** Undefined: the imposter's own protocol when the server knows it, else http. */
  protocol?: 'http' | 'https';
}

export interface InterceptRule {
  id: string;
  match: RuleMatch;
  serve?: ServeAction;
  forward?: ForwardAction;
  /** JavaScript function source, run in the sandbox (engine/script/js). */
  inject?: string;
}

/** What a rule is matched against. */
export interface InterceptedRequest {
  /** Lowercased target hostname (no port). */
  host: string;
  method: string;
  /** The path without the query string. */
  path: string;
  /** node:http's lowercased header object. */
  headers: Record<string, string | string[] | undefined>;
}

const RULE_KEYS = new Set(['id', 'match', 'serve', 'forward', 'inject']);
const MATCH_KEYS = new Set(['host', 'method', 'path', 'pathPrefix', 'headers']);
const SERVE_KEYS = new Set(['statusCode', 'status', 'headers', 'body']);
const FORWARD_KEYS = new Set(['port', 'protocol']);
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HOST = /^(\*\.)?[a-z0-9_.:[\]-]+$/;

function fail(where: string, message: string, source: unknown): never {
  throw interceptErrors.badRule(`${where}: ${message}`, source);
}

function onlyKeys(value: Record<string, unknown>, allowed: Set<string>, where: string, source: unknown): void {
  for (const key of Object.keys(value)) if (!allowed.has(key)) fail(where, `unknown field '${key}' (allowed: ${[...allowed].join(', ')})`, source);
}

function optionalString(value: unknown, where: string, source: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') fail(where, 'must be a non-empty string', source);
  return value;
}

function parseMatch(value: unknown, where: string, source: unknown): RuleMatch {
  if (value === undefined) return {};
  if (!isObject(value)) fail(where, 'must be an object', source);
  onlyKeys(value, MATCH_KEYS, where, source);
  const match: RuleMatch = {};
  const host = optionalString(value.host, `${where}.host`, source)?.toLowerCase();
  if (host !== undefined) {
    if (!HOST.test(host)) fail(`${where}.host`, 'must be a hostname, optionally starting with "*."', source);
    match.host = host;
  }
  const method = optionalString(value.method, `${where}.method`, source);
  if (method !== undefined) {
    if (!METHOD.test(method)) fail(`${where}.method`, 'must be an HTTP method token', source);
    match.method = method.toUpperCase();
  }
  const path = optionalString(value.path, `${where}.path`, source);
  const pathPrefix = optionalString(value.pathPrefix, `${where}.pathPrefix`, source);
  if (path !== undefined && pathPrefix !== undefined) fail(where, 'give path or pathPrefix, not both', source);
  for (const [name, given] of [
    ['path', path],
    ['pathPrefix', pathPrefix],
  ] as const) {
    if (given !== undefined && !given.startsWith('/')) fail(`${where}.${name}`, 'must start with "/"', source);
  }
  if (path !== undefined) match.path = path;
  if (pathPrefix !== undefined) match.pathPrefix = pathPrefix;
  if (value.headers !== undefined) {
    if (!isObject(value.headers)) fail(`${where}.headers`, 'must be an object of header name to string value', source);
    const headers: Record<string, string> = {};
    for (const [name, expected] of Object.entries(value.headers)) {
      if (typeof expected !== 'string') fail(`${where}.headers.${name}`, 'must be a string', source);
      headers[name.toLowerCase()] = expected;
    }
    match.headers = headers;
  }
  return match;
}

function parseStatus(value: Record<string, unknown>, where: string, source: unknown): number {
  const { statusCode, status } = value;
  if (statusCode !== undefined && status !== undefined && statusCode !== status) fail(where, 'statusCode and status disagree', source);
  const given = statusCode ?? status ?? 200;
  const code = typeof given === 'string' && /^\d+$/.test(given) ? Number(given) : given;
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 100 || code > 999)
    fail(`${where}.statusCode`, 'must be an integer from 100 to 999', source);
  return code;
}

function parseServeHeaders(value: unknown, where: string, source: unknown): Record<string, string | string[]> {
  if (value === undefined) return {};
  if (!isObject(value)) fail(where, 'must be an object of header name to value', source);
  const headers: Record<string, string | string[]> = {};
  for (const [name, given] of Object.entries(value)) {
    if (typeof given === 'string' || typeof given === 'number' || typeof given === 'boolean') headers[name] = String(given);
    else if (Array.isArray(given) && given.every((item) => typeof item === 'string')) headers[name] = given as string[];
    else fail(`${where}.${name}`, 'must be a string, number, boolean or an array of strings', source);
    // Checked here as node:http checks when it writes: a header it refuses would otherwise throw while
    // serving (from the proxy's request listener), not be this call's 400.
    try {
      validateHeaderName(name);
      for (const item of ([] as string[]).concat(headers[name])) validateHeaderValue(name, item);
    } catch (err) {
      fail(`${where}.${name}`, `is not a valid HTTP header: ${(err as Error).message}`, source);
    }
  }
  return headers;
}

function parseServe(value: unknown, where: string, source: unknown): ServeAction {
  if (!isObject(value)) fail(where, 'must be an object', source);
  onlyKeys(value, SERVE_KEYS, where, source);
  const headers = parseServeHeaders(value.headers, `${where}.headers`, source);
  const configuredBody = value.body;
  let body = '';
  if (typeof configuredBody === 'string') body = configuredBody;
  else if (configuredBody !== undefined) {
    body = JSON.stringify(configuredBody);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  return { statusCode: parseStatus(value, where, source), headers, body, configuredBody };
}

function parseForward(value: unknown, where: string, source: unknown): ForwardAction {
  if (!isObject(value)) fail(where, 'must be an object', source);
  onlyKeys(value, FORWARD_KEYS, where, source);
  const { port, protocol } = value;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) fail(`${where}.port`, 'must be a port number from 1 to 65535', source);
  if (protocol !== undefined && protocol !== 'http' && protocol !== 'https') fail(`${where}.protocol`, 'must be "http" or "https"', source);
  return protocol === undefined ? { port } : { port, protocol };
}

/** One rule, validated; `nextId` names rules that come without an id. */
export function parseRule(value: unknown, where: string, nextId: () => string): InterceptRule {
  if (!isObject(value)) fail(where, 'a rule must be an object', value);
  onlyKeys(value, RULE_KEYS, where, value);
  const id = value.id === undefined ? nextId() : optionalString(value.id, `${where}.id`, value)!;
  const match = parseMatch(value.match, `${where}.match`, value);
  const actions = ['serve', 'forward', 'inject'].filter((action) => value[action] !== undefined);
  if (actions.length !== 1) fail(where, 'a rule needs exactly one action: serve, forward or inject', value);
  if (value.serve !== undefined) return { id, match, serve: parseServe(value.serve, `${where}.serve`, value) };
  if (value.forward !== undefined) return { id, match, forward: parseForward(value.forward, `${where}.forward`, value) };
  return { id, match, inject: optionalString(value.inject, `${where}.inject`, value)! };
}

/** One rule object or an array of them (docs/intercept.md). */
function rulesArray(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return pattern === host;
}

export function ruleMatches(match: RuleMatch, request: InterceptedRequest): boolean {
  if (match.host !== undefined && !hostMatches(match.host, request.host)) return false;
  if (match.method !== undefined && match.method !== request.method) return false;
  if (match.path !== undefined && match.path !== request.path) return false;
  if (match.pathPrefix !== undefined && !request.path.startsWith(match.pathPrefix)) return false;
  if (match.headers !== undefined) {
    for (const [name, expected] of Object.entries(match.headers)) {
      const actual = request.headers[name];
      if (Array.isArray(actual) ? !actual.includes(expected) : actual !== expected) return false;
    }
  }
  return true;
}

/** The rule as the admin API shows it: the configured shape, with its id. */
export function renderRule(rule: InterceptRule): Record<string, unknown> {
  const rendered: Record<string, unknown> = { id: rule.id, match: { ...rule.match } };
  if (rule.serve) {
    const serve: Record<string, unknown> = { statusCode: rule.serve.statusCode, headers: rule.serve.headers };
    if (rule.serve.configuredBody !== undefined) serve.body = rule.serve.configuredBody;
    rendered.serve = serve;
  }
  if (rule.forward) rendered.forward = { ...rule.forward };
  if (rule.inject !== undefined) rendered.inject = rule.inject;
  return rendered;
}

/** The rules of one intercept session, in insertion order, bounded by RULE_CAPACITY. */
export class RuleStore {
  private rules: InterceptRule[] = [];
  private counter = 0;

  /**
   * Validates every rule first and adds all or none; returns the added rules. Without
   * `allowInjection` a scripted (inject) rule is a 400 `invalid injection`.
   */
  add(body: unknown, allowInjection: boolean): InterceptRule[] {
    const items = rulesArray(body);
    if (this.rules.length + items.length > RULE_CAPACITY) throw interceptErrors.rulesFull(RULE_CAPACITY, this.rules.length, items.length);
    const ids = new Set(this.rules.map((rule) => rule.id));
    const added = items.map((item, index) => {
      const rule = parseRule(item, Array.isArray(body) ? `rules[${index}]` : 'rule', () => this.freshId(ids));
      if (ids.has(rule.id)) fail(`rules[${index}].id`, `duplicate rule id '${rule.id}'`, item);
      ids.add(rule.id);
      return rule;
    });
    const scripted = added.find((rule) => rule.inject !== undefined);
    if (scripted && !allowInjection) {
      throw interceptErrors.invalidInjection(`${injectionMessages.javascript} (intercept rule '${scripted.id}' uses inject)`);
    }
    this.rules = [...this.rules, ...added];
    return added;
  }

  list(): InterceptRule[] {
    return this.rules;
  }

  clear(): number {
    const deleted = this.rules.length;
    this.rules = [];
    return deleted;
  }

  find(request: InterceptedRequest): InterceptRule | undefined {
    for (const rule of this.rules) if (ruleMatches(rule.match, request)) return rule;
    return undefined;
  }

  private freshId(taken: Set<string>): string {
    let id: string;
    do {
      this.counter += 1;
      id = `rule-${this.counter}`;
    } while (taken.has(id));
    return id;
  }
}

import { errorEntries, errors, isObject, type ErrorEntry } from '../../engine/model/index.js';

/** One `match.headers` clause: the name compared case-insensitively (kept lowercased), the value exactly. */
export interface HeaderClause {
  name: string;
  value: string;
}

/** A validated route (docs/front-door.md), with its match compiled for dispatch. */
export interface Route {
  id: string;
  priority: number;
  enabled: boolean;
  /** Lowercased exact host, undefined when the route does not look at the host. */
  host?: string;
  /** For `*.a.b`: `.a.b` (lowercased); the Host must end with it and have at least one more character. */
  hostSuffix?: string;
  pathPrefix?: string;
  headers: HeaderClause[];
  method?: string;
  target: { port: number; stripPrefix: boolean; setHost?: string };
}

const ROUTE_KEYS = new Set(['id', 'match', 'priority', 'enabled', 'target']);
const MATCH_KEYS = new Set(['host', 'path_prefix', 'headers', 'method']);
const TARGET_KEYS = new Set(['port', 'strip_prefix', 'set_host']);
/** RFC 9110 token: what a method and a header name may be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A host name or address as a Host header carries it, without a port; `[v6]` allowed. */
const HOST_NAME = /^(?:\[[0-9A-Fa-f:.]+\]|[^\s*:/?#@[\]]+)$/;
/** What may go into a Host header value (`set_host`): visible ASCII, no spaces or control characters. */
const HEADER_VALUE = /^[\x21-\x7e]+$/;

/** Collects problems of one route; each message starts with the route's name. */
class RouteProblems {
  readonly found: ErrorEntry[] = [];

  constructor(private readonly name: string) {}

  add(message: string): void {
    this.found.push(errorEntries.badData(`route ${this.name}: ${message}`));
  }

  unknownKeys(where: string, value: Record<string, unknown>, known: Set<string>): void {
    for (const key of Object.keys(value)) {
      if (!known.has(key)) this.add(`unknown field '${where}${key}'`);
    }
  }
}

function parseHost(value: unknown, problems: RouteProblems, route: Route): void {
  if (typeof value !== 'string' || value === '') {
    problems.add(`'match.host' must be a non-empty string`);
    return;
  }
  const wildcard = value.startsWith('*.');
  const name = wildcard ? value.slice(2) : value;
  if (name.includes('*')) {
    problems.add(`'match.host' ${JSON.stringify(value)} may use '*' only as one leading '*.' label`);
    return;
  }
  if (!HOST_NAME.test(name) || name.startsWith('.') || name.includes('..')) {
    problems.add(`'match.host' ${JSON.stringify(value)} is not a host name (no port, path or spaces)`);
    return;
  }
  if (wildcard) route.hostSuffix = '.' + name.toLowerCase();
  else route.host = name.toLowerCase();
}

function parseHeaders(value: unknown, problems: RouteProblems): HeaderClause[] {
  if (!Array.isArray(value)) {
    problems.add(`'match.headers' must be a list of {name, value}`);
    return [];
  }
  const clauses: HeaderClause[] = [];
  value.forEach((clause: unknown, index) => {
    const where = `'match.headers[${index}]'`;
    if (!isObject(clause) || typeof clause.name !== 'string' || typeof clause.value !== 'string') {
      problems.add(`${where} must be {name: string, value: string}`);
      return;
    }
    problems.unknownKeys(`match.headers[${index}].`, clause, new Set(['name', 'value']));
    if (!TOKEN.test(clause.name)) {
      problems.add(`${where} name ${JSON.stringify(clause.name)} is not a valid header name`);
      return;
    }
    clauses.push({ name: clause.name.toLowerCase(), value: clause.value });
  });
  return clauses;
}

function parseMatch(value: unknown, problems: RouteProblems, route: Route): void {
  if (value === undefined) return;
  if (!isObject(value)) {
    problems.add(`'match' must be an object`);
    return;
  }
  problems.unknownKeys('match.', value, MATCH_KEYS);
  if (value.host !== undefined) parseHost(value.host, problems, route);
  if (value.path_prefix !== undefined) {
    const prefix = value.path_prefix;
    if (typeof prefix !== 'string' || !prefix.startsWith('/')) {
      problems.add(`'match.path_prefix' must be a string starting with '/', got ${JSON.stringify(prefix)}`);
    } else if (/[?#\s]/.test(prefix)) {
      problems.add(`'match.path_prefix' ${JSON.stringify(prefix)} must be a path only (no query, fragment or spaces)`);
    } else {
      route.pathPrefix = prefix;
    }
  }
  if (value.headers !== undefined) route.headers = parseHeaders(value.headers, problems);
  if (value.method !== undefined) {
    if (typeof value.method !== 'string' || !TOKEN.test(value.method)) {
      problems.add(`'match.method' ${JSON.stringify(value.method)} is not a valid HTTP method`);
    } else {
      route.method = value.method;
    }
  }
}

function parseTarget(value: unknown, problems: RouteProblems, route: Route, hasPrefix: boolean): void {
  if (!isObject(value)) {
    problems.add(`'target' must be an object with a 'port'`);
    return;
  }
  problems.unknownKeys('target.', value, TARGET_KEYS);
  const { port } = value;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    problems.add(`'target.port' must be a port number (1-65535), got ${JSON.stringify(port)}`);
  } else {
    route.target.port = port;
  }
  if (value.strip_prefix !== undefined) {
    if (typeof value.strip_prefix !== 'boolean') problems.add(`'target.strip_prefix' must be a boolean`);
    else route.target.stripPrefix = value.strip_prefix;
  }
  if (route.target.stripPrefix && !hasPrefix) problems.add(`'target.strip_prefix' needs 'match.path_prefix'`);
  if (value.set_host !== undefined) {
    if (typeof value.set_host !== 'string' || !HEADER_VALUE.test(value.set_host)) {
      problems.add(`'target.set_host' must be a non-empty Host value without spaces, got ${JSON.stringify(value.set_host)}`);
    } else {
      route.target.setHost = value.set_host;
    }
  }
}

interface ParsedRoute {
  route: Route;
  /** The `match` block as written (absent reads as `{}`), for the duplicate-match rule. */
  matchText: string;
}

function parseRoute(raw: unknown, index: number, problems: ErrorEntry[]): ParsedRoute | undefined {
  const id = isObject(raw) && typeof raw.id === 'string' && raw.id !== '' ? raw.id : undefined;
  const local = new RouteProblems(id === undefined ? `#${index + 1}` : JSON.stringify(id));
  if (!isObject(raw)) {
    local.add('must be an object');
    problems.push(...local.found);
    return undefined;
  }
  if (id === undefined) local.add(`'id' must be a non-empty string`);
  local.unknownKeys('', raw, ROUTE_KEYS);
  const route: Route = { id: id ?? '', priority: 0, enabled: true, headers: [], target: { port: 0, stripPrefix: false } };
  if (raw.priority !== undefined) {
    if (typeof raw.priority !== 'number' || !Number.isFinite(raw.priority)) local.add(`'priority' must be a number`);
    else route.priority = raw.priority;
  }
  if (raw.enabled !== undefined) {
    if (typeof raw.enabled !== 'boolean') local.add(`'enabled' must be a boolean`);
    else route.enabled = raw.enabled;
  }
  parseMatch(raw.match, local, route);
  parseTarget(raw.target, local, route, isObject(raw.match) && raw.match.path_prefix !== undefined);
  problems.push(...local.found);
  return { route, matchText: JSON.stringify(raw.match ?? {}) };
}

/** The table as written: a list of routes, or an object keyed by route id (the key is the id). */
function entriesOf(routes: unknown, problems: ErrorEntry[]): unknown[] {
  if (Array.isArray(routes)) return routes;
  if (!isObject(routes)) {
    throw errors.validation([errorEntries.badData(`'routes' must be a list of routes or an object keyed by route id`)]);
  }
  return Object.entries(routes).flatMap(([id, route]) => {
    if (!isObject(route)) {
      problems.push(errorEntries.badData(`route ${JSON.stringify(id)}: must be an object`));
      return [];
    }
    if (route.id !== undefined && route.id !== id) {
      problems.push(errorEntries.badData(`route ${JSON.stringify(id)}: its 'id' ${JSON.stringify(route.id)} differs from its key`));
    }
    return [{ ...route, id }];
  });
}

/**
 * Validates a `routes` block (docs/front-door.md) as a unit: every problem is reported (each message names the
 * route), and nothing is returned unless the whole table is valid. Undefined is an empty table.
 */
export function parseRoutes(routes: unknown): Route[] {
  if (routes === undefined) return [];
  const problems: ErrorEntry[] = [];
  const parsed = entriesOf(routes, problems).map((raw, index) => parseRoute(raw, index, problems));
  const byId = new Map<string, number>();
  const enabledByMatch = new Map<string, string>();
  for (const entry of parsed) {
    if (entry === undefined || entry.route.id === '') continue;
    const { route, matchText } = entry;
    const seen = byId.get(route.id) ?? 0;
    byId.set(route.id, seen + 1);
    if (seen === 1) problems.push(errorEntries.badData(`route ${JSON.stringify(route.id)}: duplicate id`));
    if (!route.enabled) continue;
    const key = `${route.priority}\n${matchText}`;
    const first = enabledByMatch.get(key);
    if (first === undefined) enabledByMatch.set(key, route.id);
    else if (first !== route.id) {
      problems.push(
        errorEntries.badData(`route ${JSON.stringify(route.id)}: same priority (${route.priority}) and identical match as route ${JSON.stringify(first)}`),
      );
    }
  }
  if (problems.length > 0) throw errors.validation(problems);
  return parsed.map((entry) => entry!.route);
}

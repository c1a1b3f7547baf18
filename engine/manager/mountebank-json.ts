import { cloneJson, isObject } from '../model/index.js';
import type { Imposter } from './imposter.js';
import type { RecordedRequest } from './recorded-request.js';

/**
 * Imposter JSON as mountebank 2.9.1's imposterPrinter writes it (`--compat mountebank`): its header
 * fields only (no `_svc`, `stubCount`, `enabled`, nor svc's other config keys), recorded requests
 * without svc's match outcome, and the same list / replayable / removeProxies forms.
 */
export interface MountebankRenderOptions {
  replayable?: boolean;
  removeProxies?: boolean;
  list?: boolean;
  /** Absent: no `_links`. */
  baseUrl?: string;
}

function header(imposter: Imposter, options: MountebankRenderOptions): Record<string, unknown> {
  const config = imposter.config;
  const out: Record<string, unknown> = { protocol: imposter.protocol, port: imposter.port };
  if (config.name) out.name = cloneJson(config.name);
  if (config.defaultResponse) out.defaultResponse = cloneJson(config.defaultResponse);
  if (!options.replayable) out.numberOfRequests = imposter.numberOfRequests;
  if (!options.list) {
    out.recordRequests = Boolean(config.recordRequests);
    Object.assign(out, imposter.tls);
  }
  if (config.endOfRequestResolver) out.endOfRequestResolver = cloneJson(config.endOfRequestResolver);
  return out;
}

/**
 * mountebank records `body: ''` for a request without one and decodes every body as UTF-8 (lossy
 * for binary bodies, which svc keeps as base64); it has no match outcome, status or latency.
 */
export function mountebankRecord(record: RecordedRequest): Record<string, unknown> {
  const { status: _status, latencyMs: _latency, matchOutcome: _outcome, _mode, body, ...rest } = record;
  const text = body === undefined ? '' : _mode === 'binary' ? Buffer.from(body, 'base64').toString('utf8') : body;
  return { ...cloneJson(rest), body: text };
}

/**
 * `config` with the null fields of `given` (the stub as posted) back in their places: mountebank keeps
 * what it was given, `{"is": {...}, "proxy": null}` included. Keys follow `given`'s order; what only
 * `config` has (responses a proxy recorded since) follows.
 */
function withGivenNulls(config: unknown, given: unknown): unknown {
  if (Array.isArray(config) && Array.isArray(given)) return config.map((item, i) => withGivenNulls(item, given[i]));
  if (!isObject(config) || !isObject(given)) return config;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    if (key in config) out[key] = withGivenNulls(config[key], value);
    else if (value === null) out[key] = null;
  }
  for (const [key, value] of Object.entries(config)) if (!(key in out)) out[key] = value;
  return out;
}

/** The order mountebank's compatibility.upcast lists legacy `_behaviors` in (the order 1.x ran them). */
const LEGACY_BEHAVIOR_ORDER = ['wait', 'lookup', 'copy', 'shellTransform', 'decorate'];

/** mountebank's `typeof x === 'object' && x !== null` (arrays included). */
const isJsObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * A response as mountebank 2.9.1 stores it (compatibility.upcast, run on every stub it is given): a
 * single `shellTransform` command becomes a list, and `_behaviors` without `behaviors` or `repeat`
 * beside it becomes a `behaviors` array plus a response-level `repeat`, appended after the other keys.
 */
function upcastResponse(response: unknown): unknown {
  if (!isJsObject(response)) return response;
  let out = response;
  const legacy = out._behaviors;
  if (isJsObject(legacy) && typeof legacy.shellTransform === 'string') out = { ...out, _behaviors: { ...legacy, shellTransform: [legacy.shellTransform] } };
  const behaviorsOf = out._behaviors;
  if (out.behaviors !== undefined || out.repeat !== undefined || !isJsObject(behaviorsOf)) return out;
  const behaviors: Array<Record<string, unknown>> = [];
  for (const key of LEGACY_BEHAVIOR_ORDER) {
    const value = behaviorsOf[key];
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) behaviors.push({ [key]: one });
  }
  const { _behaviors: _legacy, ...rest } = out;
  return { ...rest, ...(behaviorsOf.repeat !== undefined ? { repeat: behaviorsOf.repeat } : {}), behaviors };
}

/** A stub's read-back as mountebank gives it: the nulls it was given, legacy behaviors upcast. */
function mountebankStub(config: Record<string, unknown>, given: Record<string, unknown> | undefined): Record<string, unknown> {
  const stub = (given ? withGivenNulls(config, given) : config) as Record<string, unknown>;
  if (Array.isArray(stub.responses)) stub.responses = stub.responses.map(upcastResponse);
  return stub;
}

function isProxyResponse(response: unknown): boolean {
  return typeof response === 'object' && response !== null && 'proxy' in response;
}

function links(imposter: Record<string, unknown>, baseUrl: string | undefined, port: number): void {
  if (baseUrl === undefined) return;
  const self = `${baseUrl}/imposters/${port}`;
  imposter._links = { self: { href: self }, stubs: { href: `${self}/stubs` } };
  const stubs = imposter.stubs as Array<Record<string, unknown>> | undefined;
  stubs?.forEach((stub, i) => {
    stub._links = { self: { href: `${self}/stubs/${i}` } };
  });
}

export function renderMountebank(imposter: Imposter, options: MountebankRenderOptions): Record<string, unknown> {
  const out = header(imposter, options);
  if (options.list) {
    links(out, options.baseUrl, imposter.port);
    return out;
  }
  if (!options.replayable) out.requests = imposter.journal.all().map((entry) => mountebankRecord(entry.value));
  let stubs = imposter.stubsWithGiven().map(({ config, given }, index) => {
    const stub = mountebankStub(config, given);
    const matches = options.replayable ? undefined : imposter.stubs[index]?.matches;
    return matches ? { ...stub, matches: cloneJson(matches) } : stub;
  });
  if (options.replayable) {
    for (const stub of stubs) {
      for (const response of stub.responses as Array<{ is?: Record<string, unknown> }>) delete response.is?._proxyResponseTime;
    }
  } else {
    out.stubs = stubs;
    links(out, options.baseUrl, imposter.port);
  }
  if (options.removeProxies) {
    stubs = stubs
      .map((stub) => ({ ...stub, responses: (stub.responses as unknown[]).filter((r) => !isProxyResponse(r)) }))
      .filter((stub) => (stub.responses as unknown[]).length > 0);
  }
  out.stubs = stubs;
  return out;
}

import { errors, isObject, jsonNestingPath, MAX_JSON_DEPTH } from '../../engine/model/index.js';
import type { AdminRequest } from './router.js';

/** mountebank's flag parsing: only the string `true` (any case) sets a flag. */
export function flag(request: AdminRequest, name: string, fallback = false): boolean {
  const value = request.query.get(name);
  if (value === null) return fallback;
  return value.toLowerCase() === 'true';
}

export function jsonBody(request: AdminRequest): unknown {
  const text = request.body.toString('utf8');
  if (text.trim() === '') return {};
  const tooDeep = jsonNestingPath(text);
  if (tooDeep !== undefined) throw errors.nestingTooDeep(tooDeep, MAX_JSON_DEPTH);
  try {
    return JSON.parse(text);
  } catch {
    throw errors.invalidJson(text);
  }
}

export function objectBody(request: AdminRequest): Record<string, unknown> {
  const body = jsonBody(request);
  if (!isObject(body)) throw errors.badData('request body must be a JSON object');
  return body;
}

export function portParam(request: AdminRequest): number {
  const raw = request.params.port;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw errors.noSuchResource(`no imposter on port ${raw}`);
  return port;
}

export function renderOptions(request: AdminRequest, defaults: { replayable?: boolean } = {}) {
  return {
    replayable: flag(request, 'replayable', defaults.replayable ?? false),
    removeProxies: flag(request, 'removeProxies'),
    baseUrl: request.baseUrl,
  };
}

/** mountebank negotiates JSON/HTML on these reads (express `response.format`), which sends `Vary: Accept`. */
export const negotiated: Record<string, string> = { Vary: 'Accept' };

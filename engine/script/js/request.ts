import type { MockRequest } from '../../model/index.js';

/** A request as scripts see it (`config.request`): plain JSON, mountebank's simplified request. */
export type ScriptRequest = Record<string, unknown>;

/**
 * mountebank's simplified HTTP request, in its key order (SPEC §2.3: method, path, query, headers,
 * body; mountebank also shows requestFrom, ip and, for urlencoded bodies, form).
 */
export function scriptRequestOf(request: MockRequest): ScriptRequest {
  const shaped: ScriptRequest = {
    requestFrom: request.requestFrom,
    method: request.method,
    path: request.path,
    query: request.query,
    headers: request.headers,
    body: request.body,
    ip: request.ip,
  };
  if (request.form !== undefined) shaped.form = request.form;
  return shaped;
}

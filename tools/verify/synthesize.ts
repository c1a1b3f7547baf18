import { isObject } from '../../engine/model/index.js';
import type { VerifyStep } from './annotation.js';

/**
 * A request a stub without `_verify` most likely matches, read from its plain `equals`/`deepEquals`/
 * `startsWith` predicates on method, path, query, headers and body (also inside `and`); anything
 * else is left at the defaults (GET /).
 */
export function requestFromPredicates(predicates: unknown): VerifyStep['request'] {
  const out: VerifyStep['request'] = { method: 'GET', path: '/', headers: {} };
  const query = new URLSearchParams();
  const visit = (predicate: unknown): void => {
    if (!isObject(predicate)) return;
    if (Array.isArray(predicate.and)) predicate.and.forEach(visit);
    for (const operator of ['equals', 'deepEquals', 'startsWith']) {
      const fields = predicate[operator];
      if (!isObject(fields)) continue;
      if (typeof fields.method === 'string') out.method = fields.method.toUpperCase();
      if (typeof fields.path === 'string' && fields.path.startsWith('/')) out.path = fields.path;
      if (fields.body !== undefined) out.body = typeof fields.body === 'string' ? fields.body : JSON.stringify(fields.body);
      if (isObject(fields.headers)) {
        for (const [name, value] of Object.entries(fields.headers)) if (typeof value === 'string') out.headers[name] = value;
      }
      if (isObject(fields.query)) {
        for (const [name, value] of Object.entries(fields.query)) if (typeof value === 'string') query.set(name, value);
      }
    }
  };
  if (Array.isArray(predicates)) predicates.forEach(visit);
  const search = query.toString();
  if (search !== '') out.path += `${out.path.includes('?') ? '&' : '?'}${search}`;
  return out;
}

import { errors } from '../engine/model/index.js';

/** The admin request target as a URL; one the URL parser refuses (`http://[`, `//[`) is a 400 SvcError. */
export function requestUrl(target: string | undefined): URL {
  const raw = target ?? '/';
  try {
    return new URL(raw, 'http://localhost');
  } catch {
    throw errors.badRequest(`Invalid request target: ${raw.slice(0, 200)}`);
  }
}

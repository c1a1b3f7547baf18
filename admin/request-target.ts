import { errors } from '../engine/model/index.js';

const BASE = 'http://localhost';

/**
 * The admin request target as a URL, or a 400 SvcError. An origin-form target is read as a path even
 * when it starts with `//` (a WHATWG base-relative parse would take `//[` for an authority and fail).
 */
export function requestUrl(target: string | undefined): URL {
  const raw = target ?? '/';
  try {
    return raw.startsWith('/') ? new URL(BASE + raw) : new URL(raw, BASE);
  } catch {
    throw errors.badRequest(`Invalid request target: ${raw.slice(0, 200)}`);
  }
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted at every level: equal values give equal strings (a content key). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Deep copy of JSON-shaped data (configs are plain JSON, so structuredClone is exact). */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}

/**
 * Copy of JSON-shaped data's objects and arrays that shares its strings (immutable): what a per-request
 * copy of a stub's response needs, without copying a large body each time (structuredClone would).
 */
export function copyContainers<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyContainers) as T;
  if (isObject(value)) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      // A parsed `__proto__` key is an own property; assigning it would set the copy's prototype instead.
      if (key === '__proto__') Object.defineProperty(copy, key, { value: copyContainers(value[key]), enumerable: true, writable: true, configurable: true });
      else copy[key] = copyContainers(value[key]);
    }
    return copy as T;
  }
  return value;
}

/**
 * Deepest nesting of objects/arrays accepted in JSON text (admin bodies, config and data-directory files,
 * C ABI arguments). Validation, rendering and JSON.stringify recurse per level; bounding the depth at
 * parse time keeps every later step inside the stack.
 */
export const MAX_JSON_DEPTH = 100;

interface OpenContainer {
  array: boolean;
  /** Array index or object key of the member being read (undefined before an object's first key). */
  at: number | string | undefined;
  expectingKey: boolean;
}

/**
 * The JSON path (`stubs[0].responses`) of the first container nested deeper than `limit` in `text`,
 * or undefined. One pass over the characters, without parsing, so a deep document is refused before
 * JSON.parse spends time and memory on it; malformed text is left for JSON.parse to report.
 */
export function jsonNestingPath(text: string, limit = MAX_JSON_DEPTH): string | undefined {
  const open: OpenContainer[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = closingQuote(text, i);
      const top = open[open.length - 1];
      if (top?.expectingKey) {
        top.at = keyText(text.slice(i, end + 1));
        top.expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (open.length === limit) return pathOf(open);
      const array = c === 0x5b;
      open.push({ array, at: array ? 0 : undefined, expectingKey: !array });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
    } else if (c === 0x2c /* , */) {
      const top = open[open.length - 1];
      if (top === undefined) continue;
      if (top.array) top.at = (top.at as number) + 1;
      else top.expectingKey = true;
    }
  }
  return undefined;
}

function closingQuote(text: string, opening: number): number {
  for (let at = text.indexOf('"', opening + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c /* \ */) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
  return text.length;
}

function keyText(quoted: string): string {
  try {
    return String(JSON.parse(quoted));
  } catch {
    return quoted;
  }
}

function pathOf(open: OpenContainer[]): string {
  let path = '';
  for (const container of open) {
    const at = container.at;
    if (at === undefined) break;
    if (typeof at === 'number') path += `[${at}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(at)) path += path === '' ? at : `.${at}`;
    else path += `[${JSON.stringify(at)}]`;
  }
  return path === '' ? '$' : path;
}

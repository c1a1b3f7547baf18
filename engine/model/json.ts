export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep copy of JSON-shaped data (configs are plain JSON, so structuredClone is exact). */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}

import { errors, isObject, jsonNestingPath, MAX_JSON_DEPTH } from '../../engine/model/index.js';
import type { StubRef } from '../../engine/manager/index.js';

/** Arguments as they arrive in a request frame: strings (NULL is nil), integers. */
export type Argument = string | number | null;

export function text(args: Argument[], at: number, what: string): string {
  const value = args[at];
  if (typeof value !== 'string') throw errors.badData(`${what} is required`);
  return value;
}

export function optionalText(args: Argument[], at: number): string | undefined {
  const value = args[at];
  return typeof value === 'string' ? value : undefined;
}

export function integer(args: Argument[], at: number, what: string): number {
  const value = args[at];
  if (typeof value !== 'number' || !Number.isInteger(value)) throw errors.badData(`${what} must be an integer`);
  return value;
}

/** An imposter port; 0 and out-of-range numbers name no imposter. */
export function port(args: Argument[]): number {
  const value = integer(args, 0, 'port');
  if (value < 1 || value > 65535) throw errors.noSuchResource(`no imposter on port ${value}`);
  return value;
}

function parseJson(source: string): unknown {
  const tooDeep = jsonNestingPath(source);
  if (tooDeep !== undefined) throw errors.nestingTooDeep(tooDeep, MAX_JSON_DEPTH);
  try {
    return JSON.parse(source);
  } catch {
    throw errors.invalidJson(source);
  }
}

export function json(args: Argument[], at: number, what: string): unknown {
  return parseJson(text(args, at, what));
}

export function jsonObject(args: Argument[], at: number, what: string): Record<string, unknown> {
  const value = json(args, at, what);
  if (!isObject(value)) throw errors.badData(`${what} must be a JSON object`);
  return value;
}

/** Options JSON where NULL means defaults. */
export function options(args: Argument[], at: number, what: string): Record<string, unknown> {
  return args[at] === null || args[at] === undefined ? {} : jsonObject(args, at, what);
}

export function flag(source: Record<string, unknown>, name: string): boolean {
  const value = source[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw errors.badData(`'${name}' must be a boolean`);
  return value;
}

/** `{index: N}` or `{id: "..."}`, nothing else. */
export function stubRef(args: Argument[], at: number): StubRef {
  const ref = json(args, at, 'ref_json');
  if (isObject(ref) && Object.keys(ref).length === 1) {
    if (typeof ref.id === 'string') return { id: ref.id };
    if (typeof ref.index === 'number' && Number.isInteger(ref.index) && ref.index >= 0) return { index: ref.index };
  }
  throw errors.badData('ref_json must be {"index": <non-negative integer>} or {"id": "<stub id>"}');
}

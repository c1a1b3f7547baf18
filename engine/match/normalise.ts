/**
 * mountebank's `normalize`/`transformAll`: keys and string values are case-folded and stripped
 * by `except` before any operator runs, arrays are sorted so order never matters.
 */
import type { UserPattern } from '../model/index.js';
import { isObject, setOwn, sortedCopy } from './values.js';

export interface ValueConfig {
  /** Lowercase string values (not caseSensitive). */
  readonly lower: boolean;
  /** Lowercase object keys (mountebank derives this from caseSensitive/keyCaseSensitive). */
  readonly keyLower: boolean;
  /** The `except` pattern with its `g`/`gi` flags; global so one instance serves every replace. */
  readonly except: UserPattern | undefined;
}

/** Case first, then except: mountebank composes the transforms right to left. */
export function transformText(text: string, config: ValueConfig): string {
  const folded = config.lower ? text.toLowerCase() : text;
  return config.except ? config.except.strip(folded) : folded;
}

export function transformKey(key: string, config: ValueConfig): string {
  return config.keyLower ? key.toLowerCase() : key;
}

/** transformAll over plain data; `sort` applies mountebank's array sort (skipped by tryJSON). */
export function normaliseValue(value: unknown, config: ValueConfig, sort: boolean): unknown {
  if (typeof value === 'string') return transformText(value, config);
  if (Array.isArray(value)) {
    const mapped = value.map((element) => normaliseValue(element, config, sort));
    return sort ? sortedCopy(mapped) : mapped;
  }
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      setOwn(out, transformKey(key, config), normaliseValue((value as Record<string, unknown>)[key], config, sort));
    }
    return out;
  }
  return value;
}

/** mountebank's tryJSON: parse and normalise without sorting (indexed selectors need order); else the text. */
export function tryJSON(text: string, config: ValueConfig): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return normaliseValue(parsed, config, false);
}

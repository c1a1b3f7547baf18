/**
 * Per-request memo shared by every predicate evaluated for one request: case-folded strings and
 * lowercase-keyed maps are computed once, not once per stub.
 */
import type { MockRequest, QueryMap } from '../model/index.js';

export type ScalarField = 'requestFrom' | 'method' | 'path' | 'body' | 'ip';
export type KeyedField = 'query' | 'headers' | 'form';
export type RequestField = ScalarField | KeyedField;

/** The request keys mountebank's simplified HTTP request carries, in its key order. */
export const REQUEST_FIELDS: readonly RequestField[] = ['requestFrom', 'method', 'path', 'query', 'headers', 'body', 'ip', 'form'];

const SCALAR = new Set<string>(['requestFrom', 'method', 'path', 'body', 'ip']);

export function isScalarField(field: RequestField): field is ScalarField {
  return SCALAR.has(field);
}

/** The request field a (normalised) predicate key names, following mountebank's key case-folding. */
export function resolveField(key: string, keyLower: boolean): RequestField | undefined {
  for (const field of REQUEST_FIELDS) {
    if ((keyLower ? field.toLowerCase() : field) === key) return field;
  }
  return undefined;
}

type Keyed = Record<string, string | string[]>;

export class RequestView {
  /** Validation dry runs answer `inject` with true without running it, like mountebank. */
  readonly dryRun: boolean;
  private readonly lowered = new Map<ScalarField, string>();
  private readonly loweredKeys = new Map<KeyedField, Map<string, string | string[]>>();
  /** Parsed documents by parser and settings: a body is parsed once per request for all its jsonpath or xpath predicates. */
  private parsed: Map<string, { text: string; value: unknown }> | undefined;

  constructor(
    readonly request: MockRequest,
    dryRun = false,
  ) {
    this.dryRun = dryRun;
  }

  scalar(field: ScalarField): string | undefined {
    const value = this.request[field] as unknown;
    return typeof value === 'string' ? value : undefined;
  }

  lowerScalar(field: ScalarField): string | undefined {
    let value = this.lowered.get(field);
    if (value === undefined) {
      const raw = this.scalar(field);
      if (raw === undefined) return undefined;
      value = raw.toLowerCase();
      this.lowered.set(field, value);
    }
    return value;
  }

  /** `parse(text)`, reused while the same parser (`key`) is asked for the same text during this request. */
  parsedOnce<T>(key: string, text: string, parse: (text: string) => T): T {
    this.parsed ??= new Map();
    const found = this.parsed.get(key);
    if (found !== undefined && found.text === text) return found.value as T;
    const value = parse(text);
    this.parsed.set(key, { text, value });
    return value;
  }

  keyed(field: KeyedField): Keyed | undefined {
    const value = this.request[field] as QueryMap | undefined;
    return typeof value === 'object' && value !== null ? value : undefined;
  }

  /** Lowercased keys; a later key that folds onto an earlier one wins, as in mountebank's reduce. */
  lowerKeyed(field: KeyedField): Map<string, string | string[]> | undefined {
    let map = this.loweredKeys.get(field);
    if (map === undefined) {
      const raw = this.keyed(field);
      if (raw === undefined) return undefined;
      map = new Map();
      for (const key of Object.keys(raw)) map.set(key.toLowerCase(), raw[key] as string | string[]);
      this.loweredKeys.set(field, map);
    }
    return map;
  }
}

/**
 * A request field as one predicate sees it: mountebank normalises the whole request per predicate
 * (case, except, then jsonpath/xpath on every string); we do the same lazily, field by field.
 */
import type { Selector } from './selectors.js';
import { transformKey, transformText, type ValueConfig } from './normalise.js';
import { isScalarField, type RequestField, type RequestView, type ScalarField } from './request-view.js';
import { isObject, LazyRecord, setOwn, sortedCopy } from './values.js';

export interface ActualConfig extends ValueConfig {
  readonly select: Selector | undefined;
}

export function actualText(text: string, config: ActualConfig): unknown {
  const transformed = transformText(text, config);
  return config.select ? config.select(transformed) : transformed;
}

/** Scalar text with case folding served from the per-request memo. */
function actualScalarText(view: RequestView, field: ScalarField, config: ActualConfig): unknown {
  const text = config.lower ? view.lowerScalar(field) : view.scalar(field);
  if (text === undefined) return undefined;
  const stripped = config.except ? config.except.strip(text) : text;
  return config.select ? config.select(stripped) : stripped;
}

function actualValue(value: unknown, config: ActualConfig): unknown {
  if (typeof value === 'string') return actualText(value, config);
  if (Array.isArray(value)) return sortedCopy(value.map((element) => actualValue(element, config)));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      setOwn(out, transformKey(key, config), actualValue((value as Record<string, unknown>)[key], config));
    }
    return out;
  }
  return value;
}

export function actualField(view: RequestView, field: RequestField | undefined, config: ActualConfig): unknown {
  if (field === undefined) return undefined;
  if (isScalarField(field)) return actualScalarText(view, field, config);
  const source = view.keyed(field);
  if (source === undefined) return undefined;
  return new LazyRecord(
    (key) => {
      if (config.keyLower) return actualValue(view.lowerKeyed(field)?.get(key), config);
      return Object.hasOwn(source, key) ? actualValue(source[key], config) : undefined;
    },
    () => actualValue(source, config) as Record<string, unknown>,
  );
}

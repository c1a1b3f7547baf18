import { isObject, errorText } from '../../model/index.js';
import { loadCsv } from './csv-table.js';
import { compileSelector } from './select.js';
import { columnTokenRewrite, rewriteStrings, type TextRewrite } from './replace-tokens.js';
import type { ResponseFields, StepRunner } from './types.js';

/**
 * lookup: a key cut from the request selects a CSV row (`fromDataSource.csv`) whose columns replace
 * `${into}["column"]` tokens. A missing file, key column or row leaves the response unchanged, as in
 * mountebank (which logs and carries on).
 */
export function compileLookup(config: Record<string, unknown>): StepRunner {
  const key = config.key as Record<string, unknown>;
  const select = compileSelector(key.from, key.using as Record<string, unknown>);
  const position = typeof key.index === 'number' ? key.index : 0;
  const source = isObject(config.fromDataSource) ? config.fromDataSource.csv : undefined;
  const token = config.into as string;
  // The rewrite per row is built once: rows are shared by every request until the file changes.
  const rewrites = new WeakMap<Record<string, string>, TextRewrite | undefined>();
  return async (response: ResponseFields, ctx) => {
    if (!isObject(source)) return response;
    const keyValue = select(ctx.requestJson())[position];
    let row: Record<string, string> | undefined;
    try {
      const table = await loadCsv(source.path as string, typeof source.delimiter === 'string' ? source.delimiter : ',');
      const index = table.index(source.keyColumn as string);
      if (!index) ctx.log(`CSV headers "${table.headers.join(',')}" do not contain keyColumn:"${String(source.keyColumn)}"`);
      row = index?.get(String(keyValue));
    } catch (err) {
      ctx.log(`Cannot read ${String(source.path)}: ${errorText(err)}`);
    }
    if (!row) return response;
    if (!rewrites.has(row)) rewrites.set(row, columnTokenRewrite(token, row));
    const rewrite = rewrites.get(row);
    if (rewrite) rewriteStrings(response, rewrite);
    return response;
  };
}

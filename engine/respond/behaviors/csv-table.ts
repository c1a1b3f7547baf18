/**
 * CSV data sources for lookup, parsed once per file version (path + mtime + size) and indexed per
 * key column, so a request costs one stat and a map lookup.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';

export interface CsvTable {
  headers: string[];
  rows: Array<Record<string, string>>;
  /** First row per key value, built on first use of each key column. */
  index(keyColumn: string): Map<string, Record<string, string>> | undefined;
}

/**
 * Records of `text` split on `delimiter` with RFC 4180 quoting. Like the csv-parse stream
 * mountebank reads, parsing stops at the first malformed record (a quote inside an unquoted
 * field, a bad closing quote, or a field count different from the header's): rows before it stay usable.
 */
export function parseCsv(text: string, delimiter: string): string[][] {
  const records: string[][] = [];
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let record: string[] = [];
  let field = '';
  let i = 0;
  const endRecord = (): boolean => {
    record.push(field);
    field = '';
    const expected = records[0]?.length;
    if (expected !== undefined && record.length !== expected) return false;
    records.push(record);
    record = [];
    return true;
  };
  while (i < source.length) {
    if (source[i] === '"' && field === '') {
      const close = scanQuoted(source, i + 1);
      if (close === undefined) return records;
      field = close.value;
      i = close.next;
      const atEnd = i >= source.length || source.startsWith(delimiter, i) || source[i] === '\n' || source[i] === '\r';
      if (!atEnd) return records;
      continue;
    }
    if (source.startsWith(delimiter, i)) {
      record.push(field);
      field = '';
      i += delimiter.length;
    } else if (source[i] === '\n' || source[i] === '\r') {
      i += source[i] === '\r' && source[i + 1] === '\n' ? 2 : 1;
      if (!endRecord()) return records;
    } else if (source[i] === '"') {
      // A quote inside an unquoted field: csv-parse stops with INVALID_OPENING_QUOTE.
      return records;
    } else {
      field += source[i];
      i += 1;
    }
  }
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

function scanQuoted(source: string, start: number): { value: string; next: number } | undefined {
  let value = '';
  let i = start;
  while (i < source.length) {
    if (source[i] === '"') {
      if (source[i + 1] === '"') {
        value += '"';
        i += 2;
        continue;
      }
      return { value, next: i + 1 };
    }
    value += source[i];
    i += 1;
  }
  return undefined;
}

function tableOf(records: string[][]): CsvTable {
  const [headers = [], ...data] = records;
  const rows = data.map((values) => {
    const row: Record<string, string> = {};
    values.forEach((value, i) => {
      row[headers[i]] = value;
    });
    return row;
  });
  const indexes = new Map<string, Map<string, Record<string, string>>>();
  return {
    headers,
    rows,
    index(keyColumn) {
      if (!headers.includes(keyColumn)) return undefined;
      let byKey = indexes.get(keyColumn);
      if (!byKey) {
        byKey = new Map();
        for (const row of rows) {
          const key = row[keyColumn];
          if (key !== undefined && !byKey.has(key)) byKey.set(key, row);
        }
        indexes.set(keyColumn, byKey);
      }
      return byKey;
    },
  };
}

interface CacheEntry {
  mtimeMs: number;
  size: number;
  table: Promise<CsvTable>;
}

const cache = new Map<string, CacheEntry>();

/** The parsed table for `path` (relative to the working directory, as mountebank reads it). */
export async function loadCsv(path: string, delimiter: string): Promise<CsvTable> {
  const absolute = resolve(path);
  const info = await stat(absolute);
  const key = `${absolute}\u0000${delimiter}`;
  const cached = cache.get(key);
  if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.table;
  const table = readFile(absolute, 'utf8').then((text) => tableOf(parseCsv(text, delimiter)));
  cache.set(key, { mtimeMs: info.mtimeMs, size: info.size, table });
  table.catch(() => cache.delete(key));
  return table;
}

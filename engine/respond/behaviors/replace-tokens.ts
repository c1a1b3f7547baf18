/**
 * Token substitution in a response object (copy and lookup). Every string value and every object
 * key is rewritten, at any depth, as mountebank's globalObjectReplace does, but in one pass per
 * string: text a substitution inserts is never scanned again (docs/behaviors.md).
 */

export type TextRewrite = (text: string) => string;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** How `Array.prototype.join` spells a separator: mountebank substitutes with split/join. */
function joined(value: unknown): string {
  return value === undefined ? ',' : String(value);
}

export function rewriteStrings(node: Record<string, unknown> | unknown[], rewrite: TextRewrite): void {
  if (Array.isArray(node)) {
    node.forEach((value, index) => {
      if (typeof value === 'string') node[index] = rewrite(value);
      else if (typeof value === 'object' && value !== null) rewriteStrings(value as Record<string, unknown>, rewrite);
    });
    return;
  }
  const renames: Array<[string, string]> = [];
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (typeof value === 'string') node[key] = rewrite(value);
    else if (typeof value === 'object' && value !== null) rewriteStrings(value as Record<string, unknown>, rewrite);
    const renamed = rewrite(key);
    if (renamed !== key) renames.push([key, renamed]);
  }
  for (const [key, renamed] of renames) {
    node[renamed] = node[key];
    delete node[key];
  }
}

const INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * copy: `${TOKEN}[i]` becomes the i-th selected value and a bare `${TOKEN}` the first; an index
 * past the values leaves `[i]` after the first value, as mountebank's sequential replace does.
 */
export function indexedTokenRewrite(token: string): (values: unknown[]) => TextRewrite | undefined {
  const pattern = new RegExp(`${escapeRegex(token)}(?:\\[(\\d+)\\])?`, 'g');
  return (values) => {
    if (values.length === 0) return undefined;
    return (text) =>
      text.replace(pattern, (_whole, digits: string | undefined) => {
        if (digits === undefined) return joined(values[0]);
        if (INDEX.test(digits) && Number(digits) < values.length) return joined(values[Number(digits)]);
        return `${joined(values[0])}[${digits}]`;
      });
  };
}

/** lookup: `${TOKEN}["column"]`, `${TOKEN}['column']` and `${TOKEN}[column]` become the row's value. */
export function columnTokenRewrite(token: string, row: Record<string, string>): TextRewrite | undefined {
  const byToken = new Map<string, string>();
  for (const [column, value] of Object.entries(row)) {
    for (const quote of ['"', "'", '']) byToken.set(`${token}[${quote}${column}${quote}]`, value);
  }
  if (byToken.size === 0) return undefined;
  const alternatives = [...byToken.keys()].sort((a, b) => b.length - a.length).map(escapeRegex);
  const pattern = new RegExp(alternatives.join('|'), 'g');
  return (text) => text.replace(pattern, (found) => byToken.get(found)!);
}

/**
 * Header names that may legitimately appear on several lines (Set-Cookie cannot be comma-joined;
 * the others are list-valued). Any other name given twice in different cases is ambiguous (docs/errors.md).
 */
const MULTI_VALUED_HEADERS = new Set(['set-cookie', 'www-authenticate', 'proxy-authenticate', 'link', 'via', 'vary', 'warning', 'cache-control', 'allow']);

/** Problems for a headers object naming a single-valued header twice in different cases; `where` is its JSON path. */
export function repeatedHeaderProblems(headers: Record<string, unknown>, where: string): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    const first = seen.get(lower);
    if (first !== undefined && !MULTI_VALUED_HEADERS.has(lower)) {
      problems.push(`'${where}' repeats the header '${first}' as '${name}' (header names are case-insensitive)`);
    }
    seen.set(lower, first ?? name);
  }
  return problems;
}

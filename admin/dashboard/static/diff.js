// Where an expected and an actual value differ, for highlighting. Pure: no DOM.

const text = (value) => (typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value)));

/**
 * Strings: `[{same, text}]` segments of each side around their common prefix and suffix, so the one
 * differing stretch is marked. Objects and arrays are compared as pretty JSON, line by line: a line
 * the other side lacks is marked.
 */
export function diffParts(expected, actual) {
  const a = text(expected);
  const b = text(actual);
  const structured = (expected !== null && typeof expected === 'object') || (actual !== null && typeof actual === 'object');
  if (structured && (a.includes('\n') || b.includes('\n'))) {
    const lines = (value, other) => {
      const others = new Set(other.split('\n').map((line) => line.trim().replace(/,$/, '')));
      return value.split('\n').map((line, i, all) => ({ same: others.has(line.trim().replace(/,$/, '')), text: i < all.length - 1 ? `${line}\n` : line }));
    };
    return { expected: lines(a, b), actual: lines(b, a) };
  }
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end += 1;
  const split = (value) =>
    [
      { same: true, text: value.slice(0, start) },
      { same: false, text: value.slice(start, value.length - end) },
      { same: true, text: value.slice(value.length - end) },
    ].filter((part) => part.text !== '');
  return { expected: split(a), actual: split(b) };
}

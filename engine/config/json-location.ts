/**
 * Where JSON text first goes wrong, as `line L, column C` (1-based): V8's JSON.parse messages give a
 * character offset at best, and none for some errors, so the text is scanned once more by a strict
 * JSON grammar. Only called after JSON.parse failed, so speed does not matter.
 */
export function jsonErrorLocation(text: string): string {
  const offset = firstErrorOffset(text);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return `line ${line}, column ${column}`;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function firstErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxAt(i);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i += 1;
  };
  const string = () => {
    i += 1;
    while (i < text.length) {
      const c = text[i];
      if (c === '"') {
        i += 1;
        return;
      }
      if (c < ' ') fail();
      i += c === '\\' ? 2 : 1;
    }
    fail();
  };
  const members = (close: string, member: () => void) => {
    i += 1;
    space();
    if (text[i] === close) {
      i += 1;
      return;
    }
    for (;;) {
      member();
      space();
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text[i] === close) {
        i += 1;
        return;
      }
      fail();
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{') {
      members('}', () => {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        if (text[i] !== ':') fail();
        i += 1;
        value();
      });
    } else if (c === '[') {
      members(']', value);
    } else if (c === '"') {
      string();
    } else if (c !== undefined && (c === '-' || (c >= '0' && c <= '9'))) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) fail();
      i = NUMBER.lastIndex;
    } else {
      const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
      if (literal === undefined) fail();
      i += literal!.length;
    }
  };
  try {
    value();
    space();
    if (i < text.length) fail();
  } catch (err) {
    if (err instanceof SyntaxAt) return Math.min(err.offset, text.length);
    throw err;
  }
  return text.length;
}

class SyntaxAt {
  constructor(readonly offset: number) {}
}

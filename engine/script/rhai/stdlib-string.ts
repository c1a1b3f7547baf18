/**
 * String and character functions. Indices count characters (Unicode scalar values), not bytes.
 * Functions that Rhai defines as in-place (`trim`, `replace`, `pad`, `push`, ...) return () and hand
 * the new string back through `run.thisOut`, because JS strings are immutable.
 */
import type { Pos } from './errors.js';
import type { NativeRegistry } from './natives.js';
import type { Run } from './runtime.js';
import { RChar, charAt, charSlice, chars, display, strLen, type Int, type Value } from './values.js';
import { fresh, freshDeep, grows } from './memory.js';

const text = (v: Value): string => (v instanceof RChar ? v.c : (v as string));

/** Clamps Rhai's (start, length) arguments onto a character array, negative start counting from the end. */
function span(len: number, start: number, count: number): [number, number] {
  let s = start < 0 ? Math.max(0, len + start) : start;
  if (s > len) s = len;
  const e = count < 0 ? s : Math.min(len, s + count);
  return [s, e];
}

function rangeSpan(len: number, rg: Value): [number, number] {
  const g = rg as { start: Int; end: Int; inclusive: boolean };
  const start = Math.max(0, Number(g.start));
  const end = Number(g.end) + (g.inclusive ? 1 : 0);
  return [Math.min(start, len), Math.max(Math.min(end, len), Math.min(start, len))];
}

function update(r: Run, s: string, pos: Pos): undefined {
  r.thisOut = r.checkString(s, pos);
  return undefined;
}

/** The characters a span of the string's character count selects. */
function cut(s: string, select: (length: number) => [number, number]): string {
  const [a, b] = select(strLen(s));
  return charSlice(s, a, b);
}

function indexOf(s: string, find: string, from: number): number {
  if (strLen(s) === s.length && strLen(find) === find.length) {
    const start = from < 0 ? Math.max(0, s.length + from) : from;
    return start > s.length ? -1 : s.indexOf(find, start);
  }
  const cs = chars(s);
  const fs = chars(find);
  const start = from < 0 ? Math.max(0, cs.length + from) : from;
  outer: for (let i = start; i + fs.length <= cs.length; i++) {
    for (let j = 0; j < fs.length; j++) if (cs[i + j] !== fs[j]) continue outer;
    return i;
  }
  return -1;
}

export function registerString(n: NativeRegistry<Run>): void {
  n.add('len', ['string'], ([s]) => strLen(s as string));
  n.add('get$len', ['string'], ([s]) => strLen(s as string));
  n.add('is_empty', ['string'], ([s]) => s === '');
  n.add('get$is_empty', ['string'], ([s]) => s === '');
  n.add('bytes', ['string'], ([s]) => Buffer.byteLength(s as string));
  n.add('get$bytes', ['string'], ([s]) => Buffer.byteLength(s as string));

  n.add(
    'to_upper',
    ['string'],
    fresh(([s]) => (s as string).toUpperCase()),
  );
  n.add(
    'to_lower',
    ['string'],
    fresh(([s]) => (s as string).toLowerCase()),
  );
  n.add('to_upper', ['char'], ([c]) => new RChar(firstChar((c as RChar).c.toUpperCase())));
  n.add('to_lower', ['char'], ([c]) => new RChar(firstChar((c as RChar).c.toLowerCase())));
  n.add('make_upper', ['string'], ([s], r, pos) => update(r, (s as string).toUpperCase(), pos));
  n.add('make_lower', ['string'], ([s], r, pos) => update(r, (s as string).toLowerCase(), pos));

  n.add('contains', ['string', 'text'], ([s, x]) => (s as string).includes(text(x)));
  n.add('starts_with', ['string', 'text'], ([s, x]) => (s as string).startsWith(text(x)));
  n.add('ends_with', ['string', 'text'], ([s, x]) => (s as string).endsWith(text(x)));
  n.add('index_of', ['string', 'text'], ([s, x]) => indexOf(s as string, text(x), 0));
  n.add('index_of', ['string', 'text', 'i64'], ([s, x, from]) => indexOf(s as string, text(x), Number(from)));

  n.add(
    'sub_string',
    ['string', 'i64', 'i64'],
    fresh(([s, start, len]) => cut(s as string, (n) => span(n, Number(start), Number(len)))),
  );
  n.add(
    'sub_string',
    ['string', 'i64'],
    fresh(([s, start]) => cut(s as string, (n) => span(n, Number(start), n))),
  );
  n.add(
    'sub_string',
    ['string', 'range'],
    fresh(([s, rg]) => cut(s as string, (n) => rangeSpan(n, rg))),
  );
  n.add('crop', ['string', 'i64', 'i64'], ([s, start, len], r, pos) =>
    update(
      r,
      cut(s as string, (n) => span(n, Number(start), Number(len))),
      pos,
    ),
  );
  n.add('crop', ['string', 'i64'], ([s, start], r, pos) =>
    update(
      r,
      cut(s as string, (n) => span(n, Number(start), n)),
      pos,
    ),
  );
  n.add('truncate', ['string', 'i64'], ([s, len], r, pos) =>
    update(
      r,
      cut(s as string, (n) => [0, Math.min(n, Math.max(0, Number(len)))]),
      pos,
    ),
  );
  n.add('clear', ['string'], (_a, r, pos) => update(r, '', pos));
  n.add('trim', ['string'], ([s], r, pos) => update(r, (s as string).trim(), pos));
  n.add('trim_start', ['string'], ([s], r, pos) => update(r, (s as string).trimStart(), pos));
  n.add('trim_end', ['string'], ([s], r, pos) => update(r, (s as string).trimEnd(), pos));
  n.add(
    'replace',
    ['string', 'text', 'text'],
    grows(([s, find, sub], r, pos) => update(r, (s as string).split(text(find)).join(text(sub)), pos)),
  );
  n.add('remove', ['string', 'text'], ([s, x], r, pos) => update(r, (s as string).split(text(x)).join(''), pos));
  n.add(
    'push',
    ['string', 'text'],
    grows(([s, x], r, pos) => update(r, (s as string) + text(x), pos)),
  );
  n.add(
    'append',
    ['string', 'any'],
    grows(([s, x], r, pos) => update(r, (s as string) + display(x), pos)),
  );
  n.add(
    'pad',
    ['string', 'i64', 'text'],
    grows(([s, len, fill], r, pos) => {
      const target = Number(len);
      r.checkAlloc('string', target, pos);
      let out = s as string;
      let count = strLen(out);
      const f = text(fill);
      while (count < target && f !== '') {
        for (const ch of f) {
          if (count >= target) break;
          out += ch;
          count++;
        }
      }
      return update(r, out, pos);
    }),
  );

  n.add(
    'chars',
    ['string'],
    freshDeep(([s]) => chars(s as string).map((c) => new RChar(c))),
  );
  n.add('get', ['string', 'i64'], ([s, i]) => {
    const length = strLen(s as string);
    const k = Number(i) < 0 ? length + Number(i) : Number(i);
    return k >= 0 && k < length ? new RChar(charAt(s as string, k)) : undefined;
  });
  n.add(
    'split',
    ['string'],
    freshDeep(([s]) => (s as string).split(/\s+/).filter((x) => x !== '')),
  );
  n.add(
    'split',
    ['string', 'text'],
    freshDeep(([s, sep]) => (s as string).split(text(sep))),
  );
  n.add(
    'split',
    ['string', 'text', 'i64'],
    freshDeep(([s, sep, count]) => splitN(s as string, text(sep), Number(count))),
  );
  n.add(
    'split',
    ['string', 'i64'],
    freshDeep(([s, at]) => {
      const length = strLen(s as string);
      const k = Number(at) < 0 ? Math.max(0, length + Number(at)) : Math.min(Number(at), length);
      return [charSlice(s as string, 0, k), charSlice(s as string, k, length)];
    }),
  );
  n.add(
    'split_rev',
    ['string', 'text'],
    freshDeep(([s, sep]) => (s as string).split(text(sep)).reverse()),
  );

  n.add('is_whitespace', ['char'], ([c]) => /^\s$/u.test((c as RChar).c));
  n.add('is_digit', ['char'], ([c]) => /^[0-9]$/.test((c as RChar).c));
  n.add('is_alphabetic', ['char'], ([c]) => /^\p{L}$/u.test((c as RChar).c));
  n.add('to_string', ['char'], ([c]) => (c as RChar).c);
}

function firstChar(s: string): string {
  return Array.from(s)[0] ?? s;
}

/** Splits into at most `n` segments, the last holding the rest (Rust's splitn). */
function splitN(s: string, sep: string, n: number): string[] {
  if (n <= 0) return [];
  const parts = s.split(sep);
  if (parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

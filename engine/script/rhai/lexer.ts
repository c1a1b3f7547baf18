/**
 * Rhai lexer: source text → tokens with 1-based line/column positions.
 */
import { parseError, type Pos } from './errors.js';
import { normBig, type Int } from './values.js';

export const I64_MIN_ABS = 9223372036854775808n;

export type Token =
  | { k: 'int'; v: Int; line: number; col: number }
  | { k: 'float'; v: number; line: number; col: number }
  | { k: 'str'; v: string; line: number; col: number }
  | { k: 'char'; v: string; line: number; col: number }
  | { k: 'tpl'; v: TplPart[]; line: number; col: number }
  | { k: 'id'; v: string; line: number; col: number }
  | { k: 'op'; v: string; line: number; col: number }
  | { k: 'eof'; v: ''; line: number; col: number };

/** A back-tick string is literal text interleaved with the tokens of each `${ }` expression. */
export type TplPart = string | { tokens: Token[]; pos: Pos };

// Longest first so that prefixes do not shadow longer operators.
const OPERATORS = [
  '<<=',
  '>>=',
  '**=',
  '..=',
  '!in',
  '::',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '<<',
  '>>',
  '**',
  '&&',
  '||',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '?.',
  '?[',
  '??',
  '#{',
  '..',
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
  '<',
  '>',
  '!',
  '&',
  '|',
  '^',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ';',
  ':',
  '.',
  '?',
];

export function tokenize(src: string): Token[] {
  return new Lexer(src).run(false);
}

class Lexer {
  private i = 0;
  private line = 1;
  private col = 1;
  constructor(private readonly src: string) {}

  /** Lexes to end of input, or (inside `${ }`) up to the matching closing brace. */
  run(inInterpolation: boolean): Token[] {
    const out: Token[] = [];
    let depth = 0;
    if (!inInterpolation && this.src.startsWith('#!')) this.skipLine();
    for (;;) {
      this.skipTrivia();
      if (this.i >= this.src.length) {
        if (inInterpolation) throw parseError("Expecting '}' to close the string interpolation", this.pos());
        out.push({ k: 'eof', v: '', line: this.line, col: this.col });
        return out;
      }
      const t = this.next();
      if (inInterpolation && t.k === 'op') {
        if (t.v === '{' || t.v === '#{') depth++;
        else if (t.v === '}') {
          if (depth === 0) {
            out.push({ k: 'eof', v: '', line: t.line, col: t.col });
            return out;
          }
          depth--;
        }
      }
      out.push(t);
    }
  }

  private pos(): Pos {
    return { line: this.line, col: this.col };
  }

  private advance(n = 1): void {
    for (let j = 0; j < n; j++) {
      if (this.src.charCodeAt(this.i) === 10) {
        this.line++;
        this.col = 1;
      } else this.col++;
      this.i++;
    }
  }

  private skipLine(): void {
    while (this.i < this.src.length && this.src[this.i] !== '\n') this.advance();
  }

  private skipTrivia(): void {
    const s = this.src;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\uFEFF') this.advance();
      else if (c === '/' && s[this.i + 1] === '/') this.skipLine();
      else if (c === '/' && s[this.i + 1] === '*') this.skipBlockComment();
      else break;
    }
  }

  private skipBlockComment(): void {
    const start = this.pos();
    let depth = 0;
    const s = this.src;
    while (this.i < s.length) {
      if (s[this.i] === '/' && s[this.i + 1] === '*') {
        depth++;
        this.advance(2);
      } else if (s[this.i] === '*' && s[this.i + 1] === '/') {
        depth--;
        this.advance(2);
        if (depth === 0) return;
      } else this.advance();
    }
    throw parseError('Comment is not terminated', start);
  }

  private next(): Token {
    const s = this.src;
    const c = s[this.i];
    const line = this.line;
    const col = this.col;
    if (c >= '0' && c <= '9') return this.number(line, col);
    if (isIdStart(c)) {
      const j = this.i;
      while (this.i < s.length && isIdPart(s[this.i])) this.advance();
      return { k: 'id', v: s.slice(j, this.i), line, col };
    }
    if (c === '"') {
      this.advance();
      return { k: 'str', v: this.quoted('"', { line, col }), line, col };
    }
    if (c === "'") return this.char(line, col);
    if (c === '`') return this.template(line, col);
    if (c === '#' && (s[this.i + 1] === '"' || s[this.i + 1] === '#')) return this.raw(line, col);
    for (const op of OPERATORS) {
      if (s.startsWith(op, this.i)) {
        // `!in` only as an operator when `in` is a whole word.
        if (op === '!in' && isIdPart(s[this.i + 3] ?? '')) continue;
        this.advance(op.length);
        return { k: 'op', v: op, line, col };
      }
    }
    throw parseError(`Unknown character '${c}'`, { line, col });
  }

  private number(line: number, col: number): Token {
    const s = this.src;
    const start = this.i;
    const pos = { line, col };
    if (s[this.i] === '0' && /[xob]/.test(s[this.i + 1] ?? '')) {
      const radix = s[this.i + 1] === 'x' ? 16 : s[this.i + 1] === 'o' ? 8 : 2;
      this.advance(2);
      const digitsStart = this.i;
      while (this.i < s.length && /[0-9a-fA-F_]/.test(s[this.i])) this.advance();
      const digits = s.slice(digitsStart, this.i).replace(/_/g, '');
      const prefix = radix === 16 ? '0x' : radix === 8 ? '0o' : '0b';
      if (digits === '' || !isValidRadix(digits, radix)) throw parseError(`Invalid number: ${s.slice(start, this.i)}`, pos);
      // Rhai reads non-decimal literals as the 64-bit two's-complement pattern.
      let b = BigInt(prefix + digits);
      if (b > 0xffffffffffffffffn) throw parseError(`Invalid number: ${s.slice(start, this.i)}`, pos);
      if (b > 0x7fffffffffffffffn) b -= 0x10000000000000000n;
      return { k: 'int', v: normBig(b)!, line, col };
    }
    while (this.i < s.length && /[0-9_]/.test(s[this.i])) this.advance();
    let isFloat = false;
    if (s[this.i] === '.' && /[0-9]/.test(s[this.i + 1] ?? '')) {
      isFloat = true;
      this.advance();
      while (this.i < s.length && /[0-9_]/.test(s[this.i])) this.advance();
    }
    if ((s[this.i] === 'e' || s[this.i] === 'E') && /[0-9]|[+-][0-9]/.test(s.slice(this.i + 1, this.i + 3))) {
      isFloat = true;
      this.advance(s[this.i + 1] === '+' || s[this.i + 1] === '-' ? 2 : 1);
      while (this.i < s.length && /[0-9]/.test(s[this.i])) this.advance();
    }
    const text = s.slice(start, this.i).replace(/_/g, '');
    if (isFloat) return { k: 'float', v: Number(text), line, col };
    const b = BigInt(text);
    // 2^63 is only valid negated (i64::MIN); the parser folds the minus sign or rejects it.
    if (b === I64_MIN_ABS) return { k: 'int', v: b, line, col };
    const n = normBig(b);
    if (n === undefined) throw parseError(`Invalid number: ${text}`, pos);
    return { k: 'int', v: n, line, col };
  }

  /** Reads an escaped string body up to the closing quote (opening quote already consumed). */
  private quoted(q: string, start: Pos): string {
    const s = this.src;
    let out = '';
    for (;;) {
      if (this.i >= s.length) throw parseError('Open string is not terminated', start);
      const c = s[this.i];
      if (c === q) {
        this.advance();
        return out;
      }
      if (c === '\n' && q === '"') throw parseError('Open string is not terminated', start);
      if (c === '\\') {
        const escPos = this.pos();
        this.advance();
        const e = s[this.i];
        if (e === '\n' || (e === '\r' && s[this.i + 1] === '\n')) {
          // Line continuation: skip the newline and the next line's indentation.
          this.advance(e === '\r' ? 2 : 1);
          while (s[this.i] === ' ' || s[this.i] === '\t') this.advance();
          continue;
        }
        this.advance();
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case '0':
            out += '\0';
            break;
          case '\\':
            out += '\\';
            break;
          case '"':
            out += '"';
            break;
          case "'":
            out += "'";
            break;
          case '`':
            out += '`';
            break;
          case 'x':
            out += this.hexEscape(2, escPos);
            break;
          case 'u':
            out += this.hexEscape(4, escPos);
            break;
          case 'U':
            out += this.hexEscape(8, escPos);
            break;
          default:
            throw parseError(`Invalid escape sequence: \\${e ?? ''}`, escPos);
        }
        continue;
      }
      out += c;
      this.advance();
    }
  }

  private hexEscape(n: number, pos: Pos): string {
    const hex = this.src.slice(this.i, this.i + n);
    if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) throw parseError(`Invalid escape sequence: ${hex}`, pos);
    const cp = parseInt(hex, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw parseError(`Invalid escape sequence: ${hex}`, pos);
    this.advance(n);
    return String.fromCodePoint(cp);
  }

  private char(line: number, col: number): Token {
    this.advance();
    const body = this.quoted("'", { line, col });
    if ([...body].length !== 1) throw parseError('Invalid character literal', { line, col });
    return { k: 'char', v: body, line, col };
  }

  private raw(line: number, col: number): Token {
    const s = this.src;
    let hashes = 0;
    while (s[this.i] === '#') {
      hashes++;
      this.advance();
    }
    if (s[this.i] !== '"') throw parseError(`Unknown character '#'`, { line, col });
    this.advance();
    const close = '"' + '#'.repeat(hashes);
    const end = s.indexOf(close, this.i);
    if (end < 0) throw parseError('Open string is not terminated', { line, col });
    const body = s.slice(this.i, end);
    this.advance(end - this.i + close.length);
    return { k: 'str', v: body, line, col };
  }

  private template(line: number, col: number): Token {
    const s = this.src;
    this.advance();
    const parts: TplPart[] = [];
    let text = '';
    for (;;) {
      if (this.i >= s.length) throw parseError('Open string is not terminated', { line, col });
      const c = s[this.i];
      if (c === '`') {
        this.advance();
        break;
      }
      if (c === '$' && s[this.i + 1] === '{') {
        if (text) parts.push(text);
        text = '';
        const pos = this.pos();
        this.advance(2);
        parts.push({ tokens: this.run(true), pos });
        continue;
      }
      text += c;
      this.advance();
    }
    if (text || parts.length === 0) parts.push(text);
    return { k: 'tpl', v: parts, line, col };
  }
}

function isIdStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

function isIdPart(c: string): boolean {
  return isIdStart(c) || (c >= '0' && c <= '9');
}

function isValidRadix(digits: string, radix: number): boolean {
  const re = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : /^[01]+$/;
  return re.test(digits);
}

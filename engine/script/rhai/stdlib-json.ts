/**
 * JSON text → Rhai value. A hand-written reader because JSON.parse cannot tell `1` from `1.0` and
 * loses precision on large integers; Rhai keeps integers and floats apart.
 */
import { runtimeError, type Pos } from './errors.js';
import { RFloat, normBig, type RMap, type Value } from './values.js';

export function parseJson(text: string, pos: Pos): Value {
  const p = new JsonReader(text, pos);
  p.ws();
  const v = p.value(0);
  p.ws();
  if (p.i < text.length) throw p.fail('unexpected trailing characters');
  return v;
}

const MAX_DEPTH = 512;

class JsonReader {
  i = 0;
  constructor(
    private readonly s: string,
    private readonly pos: Pos,
  ) {}

  fail(why: string): Error {
    return runtimeError(`Invalid JSON at offset ${this.i}: ${why}`, this.pos);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length && (s[this.i] === ' ' || s[this.i] === '\n' || s[this.i] === '\r' || s[this.i] === '\t')) this.i++;
  }

  value(depth: number): Value {
    if (depth > MAX_DEPTH) throw this.fail('nested too deeply');
    const c = this.s[this.i];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', undefined],
    ] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    throw this.fail(c === undefined ? 'unexpected end of input' : `unexpected character '${c}'`);
  }

  private object(depth: number): RMap {
    const m: RMap = new Map();
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return m;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') throw this.fail('expected a property name');
      const k = this.string();
      this.ws();
      if (this.s[this.i] !== ':') throw this.fail("expected ':'");
      this.i++;
      this.ws();
      m.set(k, this.value(depth + 1));
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return m;
      if (c !== ',') throw this.fail("expected ',' or '}'");
    }
  }

  private array(depth: number): Value[] {
    const a: Value[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return a;
    }
    for (;;) {
      this.ws();
      a.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return a;
      if (c !== ',') throw this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    const start = this.i;
    const end = this.scanString();
    try {
      return JSON.parse(this.s.slice(start, end)) as string;
    } catch {
      this.i = start;
      throw this.fail('invalid string');
    }
  }

  private scanString(): number {
    const s = this.s;
    this.i++;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === '\\') this.i += 2;
      else if (c === '"') return ++this.i;
      else this.i++;
    }
    throw this.fail('unterminated string');
  }

  private number(): Value {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (!m) throw this.fail('invalid number');
    this.i += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      const n = normBig(BigInt(m[0]));
      if (n !== undefined) return n;
    }
    return new RFloat(Number(m[0]));
  }
}

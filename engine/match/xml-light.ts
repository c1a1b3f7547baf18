/**
 * A light XML tree for the documents most requests carry: elements, attributes, text and the five
 * predefined entities or character references, under an optional prolog of processing instructions
 * and whitespace. For such a document it is the tree xmldom 0.8 (mountebank's parser) builds, down to
 * its quirks (line endings, attribute whitespace, namespace scoping); for anything else (comments,
 * CDATA, DOCTYPE, unknown entities, mismatched or unclosed tags, non-ASCII names, ...) it answers
 * undefined and the caller parses with xmldom itself. About 10x cheaper than xmldom's DOM.
 */

export interface LightText {
  /** Document order, shared with elements. */
  readonly order: number;
  readonly text: string;
}

export interface LightAttribute {
  readonly local: string;
  /** The namespace URI, '' for none (xmldom's namespaceURI, falsy read as none by xpath). */
  readonly ns: string;
  readonly value: string;
  /** xmlns and xmlns:p declarations, which the attribute axis also lists. */
  readonly declaration: boolean;
}

export interface LightElement {
  readonly order: number;
  readonly local: string;
  readonly ns: string;
  readonly attributes: readonly LightAttribute[];
  readonly children: (LightElement | LightText)[];
}

export interface LightDocument {
  /** undefined for a text without elements (xmldom's document then has no element either). */
  readonly root: LightElement | undefined;
}

export const isLightElement = (node: LightElement | LightText): node is LightElement => (node as LightElement).children !== undefined;

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

// Names are ASCII with at most one colon (xmldom splits other shapes differently for prefix and localName).
const NAME_START = new Uint8Array(128);
const NAME_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  NAME_START[c] = /[A-Za-z_]/.test(ch) ? 1 : 0;
  NAME_CHAR[c] = /[\w.-]/.test(ch) ? 1 : 0;
}
const COLON = 0x3a;
const GT = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a;

const PROLOG_INSTRUCTION = /<\?[A-Za-z_][\w.:-]*(?:[ \t\n][\s\S]*?)?\?>/y;
const BLANK = /^[ \t\n]*$/;
// What xmldom's parseFromString does to the source before anything else.
const LINE_ENDINGS = /[\r\u0085\u2028]/;
const normaliseLineEndings = (text: string) => text.replace(/\r[\n\u0085]/g, '\n').replace(/[\r\u0085\u2028]/g, '\n');
// xmldom turns these into spaces in attribute values (\r is gone by then).
const ATTRIBUTE_WHITESPACE = /[\t\n]/g;

const ENTITIES: Record<string, string> = { amp: '&', apos: "'", gt: '>', lt: '<', quot: '"' };
const REFERENCE = /&(?:(amp|apos|gt|lt|quot)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));/y;

class OutsideSubset extends Error {}
const outside = new OutsideSubset();

/** xmldom's single-pass entity replacement, for the references it resolves the way XML does. */
function decode(raw: string): string {
  let at = raw.indexOf('&');
  if (at < 0) return raw;
  let out = '';
  let from = 0;
  while (at >= 0) {
    REFERENCE.lastIndex = at;
    const found = REFERENCE.exec(raw);
    if (!found) throw outside;
    let replacement: string;
    if (found[1] !== undefined) {
      replacement = ENTITIES[found[1]] as string;
    } else {
      const code = found[2] !== undefined ? Number.parseInt(found[2], 10) : Number.parseInt(found[3] as string, 16);
      if (code > 0x10ffff) throw outside;
      replacement = String.fromCodePoint(code);
    }
    out += raw.slice(from, at) + replacement;
    from = REFERENCE.lastIndex;
    at = raw.indexOf('&', from);
  }
  return out + raw.slice(from);
}

/** Prefix to namespace URI in scope; xmldom keeps these in plain objects, so prefixes named like Object.prototype members are left to it. */
type Namespaces = Map<string, string>;

function lookup(namespaces: Namespaces, prefix: string): string {
  if (prefix === '') return namespaces.get('') ?? '';
  if (prefix in Object.prototype) throw outside;
  return namespaces.get(prefix) ?? '';
}

/** The end of the name starting at `at` (at most one colon, not first or last), or throws. */
function nameEnd(text: string, at: number): number {
  let c = text.charCodeAt(at);
  if (!(c < 128 && NAME_START[c])) throw outside;
  let colon = -1;
  let i = at + 1;
  for (; i < text.length; i++) {
    c = text.charCodeAt(i);
    if (c === COLON) {
      if (colon >= 0) throw outside;
      colon = i;
      const next = text.charCodeAt(i + 1);
      if (!(next < 128 && NAME_START[next])) throw outside;
      continue;
    }
    if (!(c < 128 && NAME_CHAR[c])) break;
  }
  return i;
}

function splitName(qname: string): [prefix: string, local: string] {
  const colon = qname.indexOf(':');
  return colon < 0 ? ['', qname] : [qname.slice(0, colon), qname.slice(colon + 1)];
}

interface Open {
  readonly qname: string;
  readonly element: LightElement;
  readonly namespaces: Namespaces;
}

const NO_ATTRIBUTES: readonly LightAttribute[] = [];

/** What startTag read, reused across tags. */
interface Started {
  qname: string;
  element: LightElement | undefined;
  namespaces: Namespaces | undefined;
  closed: boolean;
}

/** Parses the start tag at `at` ('<' then a name); `into` receives the element; returns the index after '>'. */
function startTag(text: string, at: number, inScope: Namespaces, order: number, into: Started): number {
  const end = nameEnd(text, at + 1);
  const qname = text.slice(at + 1, end);
  let i = end;
  let names: string[] | undefined;
  let values: string[] | undefined;
  let closed = false;
  for (;;) {
    let c = text.charCodeAt(i);
    const spaced = isSpace(c);
    while (isSpace(c)) c = text.charCodeAt(++i);
    if (c === GT) break;
    if (c === SLASH) {
      if (text.charCodeAt(i + 1) !== GT) throw outside;
      closed = true;
      i++;
      break;
    }
    // An attribute: xmldom wants a space before it (it warns and goes on otherwise).
    if (!spaced) throw outside;
    const nameStop = nameEnd(text, i);
    const name = text.slice(i, nameStop);
    i = nameStop;
    while (isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== EQUALS) throw outside;
    i++;
    while (isSpace(text.charCodeAt(i))) i++;
    const quote = text.charCodeAt(i);
    if (quote !== 0x22 && quote !== 0x27) throw outside;
    const close = text.indexOf(quote === 0x22 ? '"' : "'", i + 1);
    if (close < 0) throw outside;
    let value = text.slice(i + 1, close);
    // xmldom guesses self-closing tags by searching the source for '</name>': keep '<' out of values.
    if (value.indexOf('<') >= 0) throw outside;
    value = decode(ATTRIBUTE_WHITESPACE.test(value) ? value.replace(ATTRIBUTE_WHITESPACE, ' ') : value);
    ATTRIBUTE_WHITESPACE.lastIndex = 0;
    names ??= [];
    values ??= [];
    if (names.includes(name)) throw outside;
    names.push(name);
    values.push(value);
    i = close + 1;
  }
  let namespaces = inScope;
  let attributes = NO_ATTRIBUTES;
  if (names !== undefined && values !== undefined) {
    for (let n = 0; n < names.length; n++) {
      const name = names[n] as string;
      const declared = name === 'xmlns' ? '' : name.startsWith('xmlns:') ? name.slice(6) : undefined;
      if (declared === undefined) continue;
      if (declared in Object.prototype) throw outside;
      if (namespaces === inScope) namespaces = new Map(inScope);
      namespaces.set(declared, values[n] as string);
    }
    attributes = names.map((name, n): LightAttribute => {
      const [prefix, local] = splitName(name);
      const declaration = name === 'xmlns' || prefix === 'xmlns';
      return { local, value: values[n] as string, declaration, ns: declaration ? XMLNS_NS : prefix === '' ? '' : lookup(namespaces, prefix) };
    });
  }
  const [prefix, local] = splitName(qname);
  into.qname = qname;
  into.element = { order, local, ns: lookup(namespaces, prefix), attributes, children: [] };
  into.namespaces = namespaces;
  into.closed = closed;
  return i + 1;
}

/** The light tree of `source`, or undefined when it lies outside the subset this module reproduces. */
export function parseLightXml(source: string): LightDocument | undefined {
  try {
    return parse(LINE_ENDINGS.test(source) ? normaliseLineEndings(source) : source);
  } catch (error) {
    if (error === outside) return undefined;
    throw error;
  }
}

function parse(text: string): LightDocument | undefined {
  let at = text.indexOf('<');
  // No markup at all: xmldom's document holds at most a text node.
  if (at < 0) return { root: undefined };
  if (at > 0 && !BLANK.test(text.slice(0, at))) return undefined;
  while (text.startsWith('<?', at)) {
    PROLOG_INSTRUCTION.lastIndex = at;
    if (!PROLOG_INSTRUCTION.test(text)) return undefined;
    at = text.indexOf('<', PROLOG_INSTRUCTION.lastIndex);
    if (at < 0 || !BLANK.test(text.slice(PROLOG_INSTRUCTION.lastIndex, at))) return undefined;
  }
  const stack: Open[] = [];
  const started: Started = { qname: '', element: undefined, namespaces: undefined, closed: false };
  let root: LightElement | undefined;
  let order = 0;
  let namespaces: Namespaces = new Map([['xml', XML_NS]]);
  for (;;) {
    if (text.charCodeAt(at + 1) === SLASH) {
      // No space before '>': xmldom's self-closing guess looks for '</name>' exactly.
      const open = stack.pop();
      if (!open || !text.startsWith(open.qname, at + 2) || text.charCodeAt(at + 2 + open.qname.length) !== GT) return undefined;
      at += open.qname.length + 3;
      if (stack.length > 0) namespaces = (stack[stack.length - 1] as Open).namespaces;
    } else {
      if (root !== undefined && stack.length === 0) return undefined;
      at = startTag(text, at, namespaces, order++, started);
      const element = started.element as LightElement;
      if (stack.length > 0) (stack[stack.length - 1] as Open).element.children.push(element);
      else root = element;
      if (!started.closed) {
        namespaces = started.namespaces as Namespaces;
        stack.push({ qname: started.qname, element, namespaces });
      }
    }
    const tag = text.indexOf('<', at);
    if (stack.length === 0) {
      // After the root element only whitespace: xmldom drops it (a comment or PI would be a node).
      return tag < 0 && BLANK.test(text.slice(at)) ? { root } : undefined;
    }
    if (tag < 0) return undefined;
    if (tag > at) (stack[stack.length - 1] as Open).element.children.push({ order: order++, text: decode(text.slice(at, tag)) });
    at = tag;
  }
}

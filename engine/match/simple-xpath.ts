/**
 * Location paths of plain steps (`/a/b`, `//p:item`, `//*`, ending maybe in `/text()` or `/@id`),
 * compiled once and evaluated over a light XML tree (xml-light.ts) with the `xpath` package's
 * semantics: an unprefixed name selects elements without a namespace, a prefix selects by the
 * namespace the predicate's `ns` maps it to, nodes come back in document order without duplicates,
 * and an element's value is its first child's text ('undefined' when that is an element or absent).
 * Anything else (predicates, functions, axes, unmapped prefixes) is left to the `xpath` package.
 */
import { isLightElement, type LightDocument, type LightElement, type LightText } from './xml-light.js';

interface NameTest {
  /** undefined for `*`, which matches elements of any name and namespace. */
  readonly local: string | undefined;
  readonly ns: string | undefined;
}

interface Step {
  /** `//` before the step (descendant-or-self::node()/ in front of it). */
  readonly deep: boolean;
  readonly test: NameTest;
}

interface Final {
  readonly deep: boolean;
  /** undefined for text(). */
  readonly attribute: NameTest | undefined;
}

/** Node values, or `'fallback'` when a document shape needs the full engine (two attributes of one name and namespace). */
export type SimplePath = (doc: LightDocument) => string[] | 'fallback';

const NAME = '[A-Za-z_][\\w.-]*';
// text() before names: `text` alone is an element name.
const STEP = new RegExp(`(//?)(?:(text\\(\\))|(\\*)|@(?:(${NAME}):)?(${NAME})|(?:(${NAME}):)?(${NAME}))`, 'y');
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const ANY: NameTest = { local: undefined, ns: undefined };

function nameTest(prefix: string | undefined, local: string, ns: Record<string, unknown>): NameTest | undefined {
  if (prefix === undefined) return { local, ns: '' };
  // xpath asks the resolver (ns[prefix]); only a mapped string behaves as a plain namespace comparison.
  const uri = Object.hasOwn(ns, prefix) ? ns[prefix] : undefined;
  // '' compares like no namespace only through xpath's `|| ''`; the XMLNS namespace would select declarations.
  if (typeof uri !== 'string' || uri === '' || uri === XMLNS_NS) return undefined;
  return { local, ns: uri };
}

const matches = (test: NameTest, local: string, ns: string) => (test.local === undefined || test.local === local) && (test.ns === undefined || test.ns === ns);

function children(context: readonly LightElement[], test: NameTest, deep: boolean): LightElement[] {
  const out: LightElement[] = [];
  const visit = (element: LightElement) => {
    for (const child of element.children) {
      if (!isLightElement(child)) continue;
      if (matches(test, child.local, child.ns)) out.push(child);
      if (deep) visit(child);
    }
  };
  for (const element of context) visit(element);
  return out;
}

/** xpath returns node sets in document order without duplicates. */
function documentOrder<T extends { order: number }>(nodes: T[]): T[] {
  const sorted = nodes.sort((a, b) => a.order - b.order);
  return sorted.filter((node, i) => i === 0 || sorted[i - 1] !== node);
}

function descendantsOrSelf(context: readonly LightElement[]): LightElement[] {
  const out: LightElement[] = [];
  const visit = (element: LightElement) => {
    out.push(element);
    for (const child of element.children) if (isLightElement(child)) visit(child);
  };
  for (const element of context) visit(element);
  return context.length > 1 ? documentOrder(out) : out;
}

function texts(context: readonly LightElement[]): LightText[] {
  const out: LightText[] = [];
  for (const element of context) for (const child of element.children) if (!isLightElement(child)) out.push(child);
  return context.length > 1 ? documentOrder(out) : out;
}

/** xmldom's nodeValue for a selected element, as mountebank reads it: String(firstChild.data). */
function elementValue(element: LightElement): string {
  const first = element.children[0];
  return first === undefined || isLightElement(first) ? 'undefined' : first.text;
}

/** The compiled path, or undefined when `selector` is not a plain location path the light tree can answer. */
export function compileSimplePath(selector: unknown, ns: Record<string, unknown>): SimplePath | undefined {
  if (typeof selector !== 'string' || !selector.startsWith('/')) return undefined;
  const steps: Step[] = [];
  let final: Final | undefined;
  STEP.lastIndex = 0;
  while (STEP.lastIndex < selector.length) {
    if (final !== undefined) return undefined;
    const found = STEP.exec(selector);
    if (!found) return undefined;
    const deep = found[1] === '//';
    if (found[2] !== undefined || found[5] !== undefined) {
      // text() or @name right under the document would read xmldom's document-level nodes.
      if (steps.length === 0) return undefined;
      const attribute = found[5] !== undefined ? nameTest(found[4], found[5], ns) : undefined;
      if (found[5] !== undefined && !attribute) return undefined;
      final = { deep, attribute };
      continue;
    }
    const test = found[3] !== undefined ? ANY : nameTest(found[6], found[7] as string, ns);
    if (!test) return undefined;
    steps.push({ deep, test });
  }
  if (steps.length === 0) return undefined;
  return (doc) => evaluate(doc, steps, final);
}

function evaluate(doc: LightDocument, steps: readonly Step[], final: Final | undefined): string[] | 'fallback' {
  if (doc.root === undefined) return [];
  const [first, ...rest] = steps as [Step, ...Step[]];
  // The document's only element child is the root.
  let context = first.deep
    ? children([{ order: -1, local: '', ns: '', attributes: [], children: [doc.root] }], first.test, true)
    : matches(first.test, doc.root.local, doc.root.ns)
      ? [doc.root]
      : [];
  for (const step of rest) {
    if (context.length === 0) return [];
    const next = children(context, step.test, step.deep);
    // Nested context nodes (after a `//` step) interleave their children and repeat their descendants.
    context = context.length > 1 ? documentOrder(next) : next;
  }
  if (final === undefined) return context.map(elementValue);
  const owners = final.deep ? descendantsOrSelf(context) : context;
  if (final.attribute === undefined) return texts(owners).map((text) => text.text);
  const values: string[] = [];
  for (const owner of owners) {
    let hits = 0;
    for (const attribute of owner.attributes) {
      if (attribute.declaration || !matches(final.attribute, attribute.local, attribute.ns)) continue;
      if (++hits > 1) return 'fallback';
      values.push(attribute.value);
    }
  }
  return values;
}

/**
 * xpath selections agree with mountebank 2.9.1's own xpath module (xmldom + xpath) on generated
 * documents and selectors: plain location paths read the light tree when the document fits it and
 * xmldom otherwise, and either way the values (order, entities, namespaces, line endings) or the
 * error must be mountebank's. Documents mix the light subset with comments, CDATA, DOCTYPE-free
 * junk, unclosed and mismatched tags.
 */
import { createRequire } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { xpathValueSelector } from '../../../engine/match/index.js';

const test = suite('match: xpath selections as mountebank makes them');
const mountebankXpath = createRequire(import.meta.url)('mountebank/src/models/xpath.js') as {
  select(selector: string, ns: Record<string, string>, xml: string): unknown;
};

const names = ['a', 'b', 'text', 'a', 'b', 'a', 'p:a', 'q:b', 'p:c', 'c', 'xml:lang', 'x.y', 'n-1'];
const nsDecls = ['xmlns:p="urn:p"', 'xmlns:q="urn:q"', 'xmlns="urn:d"', 'xmlns:p="urn:q"', 'xmlns=""', 'xmlns:p=""', 'xmlns:q="urn:p"'];
const texts = [
  'x',
  'y',
  'z',
  ' ',
  '\n',
  'x',
  'y',
  'a&amp;b',
  '&#65;',
  '&#x42;',
  '&lt;',
  'v\r\nw',
  'tab\there',
  '&#128512;',
  '&quot;',
  'a>b',
  '&bogus;',
  '&',
  ']]>',
  '\u2028',
];
const attrVals = ['1', 'a b', 'x\ty', 'a&amp;b', '&#10;', "it's", '"q"', 'x\r\ny'];
const attrNames = ['id', 'id', 'id', 'p:id', 'k', 'k', 'p:id', 'q:id', 'k', 'xml:lang'];

const element: fc.Memo<string> = fc.memo((n) =>
  fc
    .tuple(
      fc.constantFrom(...names),
      fc.subarray(nsDecls, { maxLength: 2 }),
      fc.array(fc.tuple(fc.constantFrom(...attrNames), fc.constantFrom(...attrVals), fc.constantFrom('"', "'")), { maxLength: 3 }),
      n <= 1 ? fc.constant([] as string[]) : fc.array(fc.oneof(fc.constantFrom(...texts), element(n - 1)), { maxLength: 4 }),
      fc.constantFrom('', ' ', '\n'),
      fc.boolean(),
    )
    .map(([name, decls, attrs, kids, sp, selfClose]) => {
      const a = attrs.map(([k, v, q]) => ` ${k}=${q}${q === "'" ? v.replace(/'/g, '') : v.replace(/"/g, '')}${q}`).join('');
      const d = decls.map((x) => ` ${x}`).join('');
      if (selfClose && kids.length === 0) return `<${name}${d}${a}${sp}/>`;
      return `<${name}${d}${a}${sp}>${kids.join('')}</${name}>`;
    }),
);
const prolog = fc.constantFrom(
  '',
  '',
  '',
  '<?xml version="1.0"?>',
  '<?xml version="1.0"?>',
  '<?xml version="1.0" encoding="UTF-8"?>\n',
  ' \n',
  '<?pi x?><?xml ?>\n',
  '<!-- c -->',
  '\ufeff',
  'junk',
);
const epilog = fc.constantFrom('', '', '', '\n', ' ', '<!-- c -->', 'x', '<b/>');
const mutate = fc.constantFrom('', '', '', '', '', '', '', '', 'drop<', 'dropclose', 'comment', 'cdata', 'upper');
const doc = fc.tuple(prolog, element(4), epilog, mutate).map(([p, e, ep, m]) => {
  let s = p + e + ep;
  if (m === 'drop<') s = s.replace(/<(?=[^<]*$)/, '');
  if (m === 'dropclose') s = s.replace(/<\/[^>]*>(?=[^<]*$)/, '');
  if (m === 'comment') s = s.replace('>', '><!--x-->');
  if (m === 'cdata') s = s.replace('>', '><![CDATA[z]]>');
  if (m === 'upper') s = s.replace(/<\/a>/, '</A>');
  return s;
});
const stepName = fc.constantFrom('text', 'a', 'a', 'b', 'p:a', 'b', 'c', 'p:a', 'q:b', 'p:c', 'r:a', '*', 'x.y', 'n-1', 'd:a', 'xml:lang');
const finalStep = fc.constantFrom('', '/text()', '//text()', '/@id', '//@id', '/@p:id', '//@q:id', '/@k', '//@xml:lang', '/@xmlns');
const selector = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom('/', '//'), stepName), { minLength: 1, maxLength: 3 }), finalStep)
  .map(([steps, f]) => steps.map(([s, n]) => s + n).join('') + f);
const nsMap = fc.constantFrom<Record<string, string>>(
  { p: 'urn:p', q: 'urn:q', d: 'urn:d' },
  { p: 'urn:q' },
  {},
  { p: 'urn:p', xml: 'http://www.w3.org/XML/1998/namespace' },
  { q: '' },
);

function outcome(select: () => unknown): string {
  try {
    return JSON.stringify(select()) ?? 'undefined';
  } catch (error) {
    return `error ${(error as Error).message}`;
  }
}

test('plain paths and other selectors select what mountebank selects', () => {
  fc.assert(
    fc.property(doc, selector, nsMap, (xml, sel, ns) => {
      const ours = outcome(() => xpathValueSelector(sel, ns)(xml));
      const theirs = outcome(() => mountebankXpath.select(sel, ns, xml));
      assert.is(ours, theirs, `${JSON.stringify(xml)} ${sel} ${JSON.stringify(ns)}`);
    }),
    { numRuns: 1500 },
  );
});

test.run();

/**
 * Extracts mountebank's executable documentation scenarios from the rendered docs pages.
 *
 * mountebank's docs (node_modules/mountebank/src/views/docs/**.ejs) wrap runnable examples in `<testScenario name=...>` holding `<step type=...>` elements; a step's first
 * `<code>` is the request (after `<change to='x'>` substitutions) and an optional
 * `<assertResponse [partial='true']>` holds the expected response, with `<volatile>` marking parts the
 * docs tester does not compare. This module turns that markup into plain data; it evaluates nothing.
 *
 * The templates are rendered here rather than fetched from a running mountebank so the scenario list
 * exists synchronously (uvu registers tests at load time). The scenario blocks use only `<%= port %>`,
 * `<%= process.cwd() %>`, `<%= version %>` and one `MB_PERSISTENT` conditional (false in these runs).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface DocStep {
  type: string;
  /** Every attribute of the `<step>` element (`type`, `filename`, `delete`, ...). */
  attributes: Record<string, string>;
  /** The step's request text as the docs tester sends it. */
  text: string;
  expected?: {
    text: string;
    partial: boolean;
    /** Text of each `<volatile>` element, in document order. */
    volatile: string[];
  };
}

export interface DocScenario {
  page: string;
  name: string;
  steps: DocStep[];
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return String.fromCodePoint(code);
    }
    return entities[name.toLowerCase()] ?? whole;
  });
}

function attributesOf(openTag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of openTag.matchAll(/([\w-]+)\s*=\s*(?:'([^']*)'|"([^"]*)")/g)) {
    out[m[1]!.toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? '');
  }
  return out;
}

/** textContent of an HTML fragment: tags dropped, entities decoded. */
function textContent(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ''));
}

/** The first `<code>` element's text, `<change to='x'>shown</change>` replaced by x, trimmed. */
function codeText(html: string): string {
  const code = /<code\b[^>]*>([\s\S]*?)<\/code>/i.exec(html);
  if (!code) return '';
  const changed = code[1]!.replace(/<change\b([^>]*)>[\s\S]*?<\/change>/gi, (_whole, attrs: string) => (attributesOf(attrs).to ?? '').replace(/</g, '&lt;'));
  return textContent(changed).trim();
}

function parseStep(openTag: string, inner: string): DocStep {
  const attributes = attributesOf(openTag);
  const assertion = /<assertResponse\b([^>]*)>([\s\S]*?)<\/assertResponse>/i.exec(inner);
  const requestHtml = assertion ? inner.slice(0, assertion.index) : inner;
  const step: DocStep = { type: attributes.type ?? '', attributes, text: codeText(requestHtml) };
  if (assertion) {
    step.expected = {
      text: codeText(assertion[2]!),
      partial: attributesOf(assertion[1]!).partial === 'true',
      volatile: [...assertion[2]!.matchAll(/<volatile>([\s\S]*?)<\/volatile>/gi)].map((m) => textContent(m[1]!).trim()),
    };
  }
  return step;
}

/** The admin port written into rendered scenarios; runners rewrite it to the server's real port. */
export const DOCS_ADMIN_PORT = 2525;

/** What mountebank's express view would render for the parts scenario blocks use. */
export function renderTemplate(ejs: string, cwd: string): string {
  return ejs
    .replace(/<%\s*if \(process\.env\.MB_PERSISTENT === 'true'\) \{\s*%>[\s\S]*?<%\s*\}\s*%>/g, '')
    .replace(/<%=\s*port\s*%>/g, String(DOCS_ADMIN_PORT))
    .replace(/<%=\s*process\.cwd\(\)\s*%>/g, cwd)
    .replace(/<%=\s*version\s*%>/g, '2.9.1')
    .replace(/<%[\s\S]*?%>/g, '');
}

/** Every scenario of every docs template under `docsRoot`, page named by its path (`api/predicates/equals`). */
export function loadDocScenarios(docsRoot: string): DocScenario[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ejs')) files.push(path);
    }
  };
  walk(docsRoot);
  return files.flatMap((file) => {
    const source = readFileSync(file, 'utf8');
    if (!source.includes('<testScenario')) return [];
    return parseScenarios(renderTemplate(source, '.'), relative(docsRoot, file).replace(/\.ejs$/, ''));
  });
}

export function parseScenarios(html: string, page: string): DocScenario[] {
  const scenarios: DocScenario[] = [];
  for (const m of html.matchAll(/<testScenario\b([^>]*)>([\s\S]*?)<\/testScenario>/gi)) {
    const steps = [...m[2]!.matchAll(/<step\b([^>]*)>([\s\S]*?)<\/step>/gi)].map((s) => parseStep(s[1]!, s[2]!));
    scenarios.push({ page, name: attributesOf(m[1]!).name ?? '', steps });
  }
  return scenarios;
}

export interface DocRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  port: number;
  body: string;
}

/** A raw request as the docs tester reads it: request line, `Name: value` lines, blank line, body. */
export function parseHttpStep(text: string): DocRequest {
  const lines = text.split('\n');
  const [method = 'GET', path = '/'] = lines[0]!.split(' ');
  const headers: Record<string, string> = {};
  let port = 0;
  let i = 1;
  for (; i < lines.length; i += 1) {
    if (lines[i]!.trim() === '') break;
    const [name = '', ...rest] = lines[i]!.split(':');
    const value = rest.join(':').trim();
    headers[name.trim()] = value;
    if (name.trim().toLowerCase() === 'host') port = Number(value.split(':')[1]);
  }
  return { method, path, headers, port, body: lines.slice(i).join('\n').trim() };
}

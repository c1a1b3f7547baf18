import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { SvcFailure, errorText } from '../model/index.js';

/**
 * The embedded-template step of config files (mountebank renders them with EJS). Only the two tags
 * mountebank users rely on are understood, and nothing is ever evaluated:
 *   `<%- include path %>` / `<% include path %>` / `<%- include('path') %>`  the rendered file, raw;
 *   `<%- stringify(filename, 'path') %>` (alias `inject`)  the rendered file as a JSON string body.
 * Paths resolve relative to the file holding the tag, recursively. `<%# ... %>` comments vanish and
 * `<%%` is a literal `<%`; any other tag is an error naming the file and the tag.
 */
export class TemplateError extends SvcFailure {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
  }
}

const MAX_DEPTH = 32;
const LEGACY_INCLUDE = /^include\s+(['"]?)([^'"\s]+)\1$/;
const CALL_INCLUDE = /^include\s*\(\s*(['"])([^'"]+)\1\s*\)$/;
const STRINGIFY = /^(?:stringify|inject)\s*\(\s*(?:filename\s*,\s*)?(['"])([^'"]+)\1\s*\)$/;

/** Renders `file` (absolute or relative to the cwd); throws TemplateError on any unsupported tag. */
export function renderTemplateFile(file: string): string {
  return renderFile(resolve(file), []);
}

function renderFile(file: string, stack: string[]): string {
  if (stack.includes(file)) throw new TemplateError(stack[stack.length - 1], `include cycle: ${[...stack, file].join(' -> ')}`);
  if (stack.length >= MAX_DEPTH) throw new TemplateError(file, `includes nested deeper than ${MAX_DEPTH} levels`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const from = stack.length > 0 ? stack[stack.length - 1] : file;
    throw new TemplateError(from, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? errorText(err)}`);
  }
  return renderText(text, file, [...stack, file]);
}

/** EJS adds `.ejs` to an include path without an extension. */
function includePath(from: string, path: string): string {
  const target = resolve(dirname(from), path);
  if (extname(target) === '' && !existsSync(target)) return `${target}.ejs`;
  return target;
}

function renderText(text: string, file: string, stack: string[]): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf('<%', at);
    if (open === -1) return out + text.slice(at);
    out += text.slice(at, open);
    if (text[open + 2] === '%') {
      out += '<%';
      at = open + 3;
      continue;
    }
    const close = text.indexOf('%>', open + 2);
    if (close === -1) throw new TemplateError(file, `unterminated template tag starting '${text.slice(open, open + 40)}'`);
    const tag = text.slice(open, close + 2);
    const trimNewline = text[close - 1] === '-';
    at = close + 2;
    if (trimNewline && text.startsWith('\r\n', at)) at += 2;
    else if (trimNewline && text[at] === '\n') at += 1;
    out += renderTag(tag, trimNewline, file, stack);
  }
}

function renderTag(tag: string, trimmed: boolean, file: string, stack: string[]): string {
  const marker = tag[2];
  if (marker === '#') return '';
  const raw = marker === '-';
  const body = tag.slice(raw || marker === '=' ? 3 : 2, trimmed ? -3 : -2).trim();
  if (marker !== '=') {
    const include = LEGACY_INCLUDE.exec(body) ?? CALL_INCLUDE.exec(body);
    if (include) return renderFile(includePath(file, include[2]), stack);
  }
  const stringify = raw ? STRINGIFY.exec(body) : null;
  if (stringify) {
    const json = JSON.stringify(renderFile(resolve(dirname(file), stringify[2]), stack).trim());
    return json.slice(1, -1);
  }
  throw new TemplateError(file, `unsupported template tag ${tag} (only include and stringify are supported; code is never evaluated)`);
}

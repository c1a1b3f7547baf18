/**
 * One error catalogue (issue 12 scope 5): docs/errors.md's table lists exactly the catalogue's slugs
 * with their status and code, every slug is emitted somewhere, and no source builds an envelope entry
 * or a `type` slug outside the catalogue; every error class descends from SvcFailure.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOGUE, isErrorSlug } from '../../../engine/model/index.js';
import { repoRoot } from '../../support/servers.js';

const test = suite('architecture: error catalogue');

const CATALOGUE_FILE = 'engine/model/error-catalogue.ts';
/** `type: '...'` literals that are worker-message discriminants or key encodings, not docs/errors.md slugs. */
const NOT_ERROR_TYPES = new Set(['spki', 'pkcs8', 'state', 'run', 'done', 'ready', 'grown', 'major']);

const slugs = Object.keys(ERROR_CATALOGUE);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'build' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const sources = new Map(['engine', 'admin', 'ffi', 'tools'].flatMap(sourceFiles).map((path) => [path, readFileSync(join(repoRoot, path), 'utf8')]));

interface ReadmeRow {
  status: number;
  code: string;
}

function readmeErrorTable(): Map<string, ReadmeRow> {
  const readme = readFileSync(join(repoRoot, 'docs/errors.md'), 'utf8');
  const start = readme.indexOf('\n## Every error type\n');
  assert.ok(start >= 0, 'docs/errors.md has an "## Every error type" section');
  const end = readme.indexOf('\n## ', start + 1);
  const rows = new Map<string, ReadmeRow>();
  for (const line of readme.slice(start, end === -1 ? undefined : end).split('\n')) {
    const row = /^\| `([a-z0-9_]+)` \| (\d{3}) \| `([^`]+)` \| .+ \|$/.exec(line);
    if (row) rows.set(row[1], { status: Number(row[2]), code: row[3] });
  }
  return rows;
}

test('the catalogue is not empty and every numeric code is its status', () => {
  assert.ok(slugs.length > 0);
  for (const [slug, entry] of Object.entries(ERROR_CATALOGUE)) {
    if (/^\d+$/.test(entry.code)) assert.is(entry.code, String(entry.status), slug);
  }
});

test("docs/errors.md's table lists exactly the catalogue's slugs, with their status and code", () => {
  const rows = readmeErrorTable();
  assert.equal([...rows.keys()].sort(), [...slugs].sort());
  for (const [slug, entry] of Object.entries(ERROR_CATALOGUE)) {
    assert.equal(rows.get(slug), { status: entry.status, code: entry.code }, slug);
  }
});

test('every catalogue slug is used by some source besides the catalogue', () => {
  const unused = slugs.filter((slug) => ![...sources].some(([path, text]) => path !== CATALOGUE_FILE && text.includes(`'${slug}'`)));
  assert.equal(unused, []);
});

test("every `type: '<slug>'` literal in the sources is a catalogue slug", () => {
  const strays: string[] = [];
  for (const [path, text] of sources) {
    if (path === CATALOGUE_FILE) continue;
    for (const [, value] of text.matchAll(/\btype: '([a-z0-9_]+)'/g)) {
      if (!isErrorSlug(value) && !NOT_ERROR_TYPES.has(value)) strays.push(`${path}: ${value}`);
    }
  }
  assert.equal(strays, []);
});

test('no source writes an envelope entry by hand (code beside type): entries come from the catalogue', () => {
  const handMade = [...sources].filter(([path, text]) => path !== CATALOGUE_FILE && /\bcode: ['`][^'`]*['`],\s*type:/.test(text)).map(([path]) => path);
  assert.equal(handMade, []);
});

test('one error hierarchy: only SvcFailure extends Error directly', () => {
  const roots = [...sources].flatMap(([path, text]) => [...text.matchAll(/\bclass (\w+) extends Error\b/g)].map(([, name]) => `${path}: ${name}`));
  assert.equal(roots, ['engine/model/failures.ts: SvcFailure']);
});

test.run();

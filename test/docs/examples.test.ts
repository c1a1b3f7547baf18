/**
 * Runs every example of docs/*.md against a real svc, so a page fails its test when an example stops
 * working (docs/README.md, "Examples are tests", says how a page marks them).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot, startSvc, type RunningServer } from '../support/servers.js';
import { childEnv } from '../support/child-env.js';
import { svcCli } from '../support/svc-cli.js';

interface Block {
  lang: string;
  tags: string[];
  text: string;
  line: number;
}

interface Example {
  run: Block;
  expect?: Block;
}

const docsDir = join(repoRoot, 'docs');

/** Fenced blocks of a page with their info-string words. */
function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    blocks.push({ lang: open[1], tags: open[2].trim().split(/\s+/).filter(Boolean), text: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** `sh example` (or `python example`, `ts example`) blocks, each with the `expect` block right after it. */
function examplesOf(markdown: string): Example[] {
  const blocks = blocksOf(markdown);
  const examples: Example[] = [];
  for (let i = 0; i < blocks.length; i++) {
    if (!blocks[i].tags.includes('example')) continue;
    const next = blocks[i + 1];
    const expect = next?.tags.includes('expect') ? next : undefined;
    examples.push({ run: blocks[i], expect });
    if (expect) i++;
  }
  return examples;
}

/** The page's server options: `<!-- example-server: --allowInjection -->`. */
function serverArgs(markdown: string): string[] {
  const found = /<!--\s*example-server:([^>]*)-->/.exec(markdown);
  return found ? found[1].trim().split(/\s+/).filter(Boolean) : [];
}

/** Every object key of `expected` is in `actual` with a matching value; arrays match element by element and in length. */
function subsetDiff(expected: unknown, actual: unknown, path: string): string | undefined {
  if (expected === '...') return undefined;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`;
    if (expected.length !== actual.length) return `${path}: expected ${expected.length} entries, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const diff = subsetDiff(expected[i], actual[i], `${path}[${i}]`);
      if (diff) return diff;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const diff = subsetDiff(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (diff) return diff;
    }
    return undefined;
  }
  return Object.is(expected, actual) ? undefined : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** Admin port 2525 and imposter ports 4545-4599 of a page become free ports of this run. */
async function portMap(markdown: string, adminPort: number): Promise<(text: string) => string> {
  const ports = new Map<string, string>([['2525', String(adminPort)]]);
  for (const match of markdown.matchAll(/\b45[4-9]\d\b/g)) {
    if (!ports.has(match[0])) ports.set(match[0], String(await freePort()));
  }
  return (text) => text.replace(/\b(2525|45[4-9]\d)\b/g, (port) => ports.get(port) ?? port);
}

/** A `svc` command on PATH for the examples, running this checkout's CLI (helpers/svc-cli.ts), as `npx svc` would. */
function svcShim(dir: string): string {
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  const command = [process.execPath, ...svcCli].map((word) => `"${word}"`).join(' ');
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec ${command} "$@"\n`, { mode: 0o755 });
  return bin;
}

function runBlock(block: Block, cwd: string, bin: string): { stdout: string; stderr: string; status: number | null } {
  const command =
    block.lang === 'python'
      ? ['python3', ['-c', block.text]]
      : block.lang === 'ts'
        ? [process.execPath, ['--import', 'tsx', '--input-type=module', '-e', block.text]]
        : ['bash', ['-e', '-o', 'pipefail', '-c', block.text]];
  // Python and TypeScript examples load the checkout's build (ffi/build, the package entry): they run from its root.
  const where = block.lang === 'sh' ? cwd : repoRoot;
  const result = spawnSync(command[0] as string, command[1] as string[], {
    cwd: where,
    encoding: 'utf8',
    timeout: 30_000,
    env: childEnv({ NO_COLOR: '1', PATH: `${bin}:${process.env.PATH}` }),
  });
  return { stdout: result.stdout ?? '', stderr: (result.stderr ?? '') + (result.error ? String(result.error) : ''), status: result.status };
}

const pages = readdirSync(docsDir)
  .filter((name) => name.endsWith('.md'))
  .sort();

const test = suite('docs: every page runs its examples');

test('curl is installed (the examples use it)', () => {
  const found = spawnSync('curl', ['--version'], { encoding: 'utf8' });
  assert.is(found.status, 0, 'docs examples need curl: apt-get install -y curl');
});

test('every topic page has at least one example, and the index links every page', () => {
  const index = readFileSync(join(docsDir, 'README.md'), 'utf8');
  for (const page of pages) {
    if (page === 'README.md') continue;
    assert.ok(index.includes(`(${page})`), `docs/README.md links ${page}`);
    assert.ok(examplesOf(readFileSync(join(docsDir, page), 'utf8')).length > 0, `${page} has a runnable example`);
  }
});

for (const page of pages) {
  const markdown = readFileSync(join(docsDir, page), 'utf8');
  const examples = examplesOf(markdown);
  if (examples.length === 0) continue;
  test(`${page}: ${examples.length} example(s)`, async () => {
    const adminPort = await freePort();
    const rewrite = await portMap(markdown, adminPort);
    const cwd = mkdtempSync(join(tmpdir(), 'svc-docs-'));
    const bin = svcShim(cwd);
    let server: RunningServer | undefined;
    try {
      server = await startSvc({ adminPort, args: serverArgs(rewrite(markdown)) });
      for (const { run, expect } of examples) {
        const where = `${page}:${run.line}`;
        const result = runBlock({ ...run, text: rewrite(run.text) }, cwd, bin);
        assert.is(result.status, 0, `${where} exits 0\n${result.stderr}\n${result.stdout}`);
        if (!expect) continue;
        const wanted = rewrite(expect.text);
        if (expect.lang === 'json') {
          let actual: unknown;
          try {
            actual = JSON.parse(result.stdout);
          } catch {
            assert.unreachable(`${where} prints JSON, got: ${result.stdout}`);
          }
          const diff = subsetDiff(JSON.parse(wanted), actual, '$');
          assert.not.ok(diff, `${where}: ${diff}\nfull answer: ${result.stdout}`);
        } else {
          assert.is(result.stdout.trim(), wanted.trim(), `${where} prints what the page says`);
        }
      }
    } finally {
      await server?.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
}

test.run();

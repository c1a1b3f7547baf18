/**
 * Rhai conformance: every case in test/fixtures/rhai/cases.txt, run in one loop.
 *
 * Case file format:
 *   `# ...`                      comment
 *   `<script> ==> <debug form>`  one-line case: the result's Rhai debug form must match exactly
 *   `<script> =!> <text>`        one-line case: must fail with an error whose message contains <text>
 *   `---` + script lines + a `==> ...` / `=!> ...` line: the same for multi-line scripts.
 * An error expectation may start with `@L:C ` to also check the error position.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RhaiEngine, RhaiError, formatDebug } from '../engine/script/rhai/index.js';

interface Case {
  line: number;
  script: string;
  expect: { ok: string } | { err: string; at?: [number, number] };
}

function parseExpectation(kind: string, text: string): Case['expect'] {
  if (kind === '==>') return { ok: text };
  const m = /^@(\d+):(\d+) (.*)$/.exec(text);
  return m ? { err: m[3], at: [Number(m[1]), Number(m[2])] } : { err: text };
}

function loadCases(file: string): Case[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const cases: Case[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.trim() === '' || l.startsWith('#')) continue;
    if (l === '---') {
      const start = i + 1;
      const body: string[] = [];
      while (++i < lines.length && !/^(==>|=!>) /.test(lines[i])) body.push(lines[i]);
      if (i >= lines.length) throw new Error(`case at line ${start}: no expectation`);
      cases.push({ line: start + 1, script: body.join('\n'), expect: parseExpectation(lines[i].slice(0, 3), lines[i].slice(4)) });
      continue;
    }
    const m = /^(.*?) (==>|=!>) (.*)$/.exec(l);
    if (!m) throw new Error(`line ${i + 1}: not a case: ${l}`);
    cases.push({ line: i + 1, script: m[1], expect: parseExpectation(m[2], m[3]) });
  }
  return cases;
}

const cases = loadCases(new URL('./fixtures/rhai/cases.txt', import.meta.url).pathname);

test('the case file holds at least 400 cases', () => {
  assert.ok(cases.length >= 400, `only ${cases.length} cases`);
});

test('every conformance case', () => {
  const printed: string[] = [];
  const engine = new RhaiEngine({ limits: { maxOperations: 5_000_000 }, print: (s) => printed.push(s) });
  const failures: string[] = [];
  for (const c of cases) {
    try {
      const v = engine.compile(c.script).runRaw({ deadlineMs: 2000 });
      const got = formatDebug(v);
      if (!('ok' in c.expect)) failures.push(`line ${c.line}: expected error "${c.expect.err}", got value ${got}`);
      else if (got !== c.expect.ok) failures.push(`line ${c.line}: expected ${c.expect.ok}, got ${got}`);
    } catch (e) {
      if (!(e instanceof RhaiError)) {
        failures.push(`line ${c.line}: non-Rhai exception ${(e as Error).stack}`);
        continue;
      }
      if ('ok' in c.expect) failures.push(`line ${c.line}: expected ${c.expect.ok}, got error ${e.message}`);
      else if (!e.message.includes(c.expect.err)) failures.push(`line ${c.line}: expected error "${c.expect.err}", got "${e.message}"`);
      else if (c.expect.at && (e.line !== c.expect.at[0] || e.column !== c.expect.at[1]))
        failures.push(`line ${c.line}: expected error at ${c.expect.at.join(':')}, got ${e.line}:${e.column}`);
    }
  }
  assert.equal(failures, [], `${failures.length} of ${cases.length} cases failed:\n${failures.join('\n')}`);
});

test.run();

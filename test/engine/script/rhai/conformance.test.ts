/**
 * Rhai conformance: every case in test/support/fixtures/rhai/cases.json, run in one loop.
 *
 * Each case is `{section, script, value}` — the result's Rhai debug form (`42`, `42.0`, `"s"`, `'c'`,
 * `[1, 2]`, `#{"a": 1}`, `()`) must equal `value` — or `{section, script, error, at?}` — the script must
 * fail with a message containing `error`, at `[line, column]` when `at` is given.
 * (Fixtures are JSON because uvu's `rhai` pattern also loads files under test/support/fixtures/rhai/.)
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RhaiEngine, RhaiError, formatDebug } from '../../../../engine/script/rhai/index.js';

interface Case {
  section: string;
  script: string;
  value?: string;
  error?: string;
  at?: [number, number];
}

const cases = JSON.parse(readFileSync(new URL('../../../support/fixtures/rhai/cases.json', import.meta.url), 'utf8')) as Case[];

test('the case file holds at least 400 well-formed cases', () => {
  assert.ok(cases.length >= 400, `only ${cases.length} cases`);
  for (const c of cases) assert.ok((c.value === undefined) !== (c.error === undefined), `malformed case ${JSON.stringify(c)}`);
});

test('every conformance case', () => {
  const engine = new RhaiEngine({ limits: { maxOperations: 5_000_000 } });
  const failures: string[] = [];
  cases.forEach((c, i) => {
    const where = `case ${i} [${c.section}] ${JSON.stringify(c.script)}`;
    try {
      const got = formatDebug(engine.compile(c.script).runRaw({ deadlineMs: 2000 }));
      if (c.value === undefined) failures.push(`${where}: expected error "${c.error}", got value ${got}`);
      else if (got !== c.value) failures.push(`${where}: expected ${c.value}, got ${got}`);
    } catch (e) {
      if (!(e instanceof RhaiError)) failures.push(`${where}: non-Rhai exception ${(e as Error).stack}`);
      else if (c.error === undefined) failures.push(`${where}: expected ${c.value}, got error ${e.message}`);
      else if (!e.message.includes(c.error)) failures.push(`${where}: expected error "${c.error}", got "${e.message}"`);
      else if (c.at && (e.line !== c.at[0] || e.column !== c.at[1])) failures.push(`${where}: expected error at ${c.at.join(':')}, got ${e.line}:${e.column}`);
    }
  });
  assert.equal(failures, [], `${failures.length} of ${cases.length} cases failed:\n${failures.join('\n')}`);
});

test.run();

/**
 * Rhai Book example scripts must print what the Book says they print. Each test/support/fixtures/rhai/book/*.json
 * holds `{name, script: [lines], output: [printed lines]}` (JSON, not .rhai files, because uvu's `rhai`
 * pattern would load anything under test/support/fixtures/rhai/ as a test module).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileRhai } from '../../../../engine/script/rhai/index.js';

const dir = new URL('../../../support/fixtures/rhai/book/', import.meta.url).pathname;
const examples = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(dir + f, 'utf8')) as { name: string; script: string[]; output: string[] });

test('there are Book examples to run', () => {
  assert.ok(examples.length >= 10, `only ${examples.length} example scripts`);
});

for (const ex of examples) {
  test(`book example ${ex.name}`, () => {
    const printed: string[] = [];
    const debugged: string[] = [];
    const program = compileRhai(ex.script.join('\n'), {
      print: (s) => printed.push(s),
      debug: (s) => debugged.push(s),
    });
    program.run({ deadlineMs: 5000 });
    assert.equal(printed, ex.output);
  });
}

test('debug output is routed separately from print, in debug form', () => {
  const printed: string[] = [];
  const debugged: string[] = [];
  compileRhai('print("p"); debug("d"); debug([1, \'c\'])', {
    print: (s) => printed.push(s),
    debug: (s) => debugged.push(s),
  }).run();
  assert.equal(printed, ['p']);
  assert.equal(debugged, ['"d"', "[1, 'c']"]);
});

test.run();

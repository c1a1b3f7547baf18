/**
 * Rhai Book example scripts (test/fixtures/rhai/book/*.rhai) must print what the Book says they print
 * (the matching *.out file, one `print` per line).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileRhai } from '../engine/script/rhai/index.js';

const dir = new URL('./fixtures/rhai/book/', import.meta.url).pathname;
const scripts = readdirSync(dir).filter((f) => f.endsWith('.rhai')).sort();

test('there are Book examples to run', () => {
  assert.ok(scripts.length >= 10, `only ${scripts.length} example scripts`);
});

for (const file of scripts) {
  test(`book example ${file}`, () => {
    const printed: string[] = [];
    const debugged: string[] = [];
    const program = compileRhai(readFileSync(dir + file, 'utf8'), {
      print: (s) => printed.push(s),
      debug: (s) => debugged.push(s),
    });
    program.run({ deadlineMs: 5000 });
    const expected = readFileSync(dir + file.replace(/\.rhai$/, '.out'), 'utf8').replace(/\n$/, '').split('\n');
    assert.equal(printed, expected);
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

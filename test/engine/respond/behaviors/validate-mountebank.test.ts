/**
 * Behavior validation messages, svc against mountebank 2.9.1's behaviors.validate run in this
 * process, over hand-picked and randomly assembled behavior lists (seeded, so a failure repeats).
 * svc's own wait forms (`{min, max}`, `{inject}`) are left out: mountebank rejects objects there.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { behaviorProblems } from '../../../../engine/respond/behaviors/index.js';

const require = createRequire(import.meta.url);
const mountebank = require('mountebank/src/models/behaviors.js') as { validate(behaviors: unknown[]): Array<{ message: string }> };

let compared = 0;

/** Same messages as mountebank; where mountebank's validator itself throws (null inside copy/lookup), svc must still answer. */
function same(behaviors: unknown[]): void {
  const actual = behaviorProblems({ is: {}, behaviors }).map((p) => p.message);
  let expected: string[];
  try {
    expected = mountebank.validate(structuredClone(behaviors)).map((e) => e.message);
  } catch {
    assert.ok(actual.length > 0, `svc accepts what mountebank cannot validate: ${JSON.stringify(behaviors)}`);
    return;
  }
  compared += 1;
  assert.equal(actual, expected, JSON.stringify(behaviors));
}

/** Small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const scalars: unknown[] = [undefined, 'text', '', 0, 5, -3, 1.5, true, null, [], ['a'], {}, { a: 1 }, { a: 1, b: 2 }, { csv: {} }];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)];
}

function maybe(rand: () => number, value: () => unknown): unknown {
  return rand() < 0.7 ? value() : pick(rand, scalars);
}

function using(rand: () => number): unknown {
  return { method: maybe(rand, () => pick(rand, ['regex', 'xpath', 'jsonpath', 'css'])), selector: maybe(rand, () => '\\d+') };
}

function entry(rand: () => number): Record<string, unknown> {
  const from = () => pick(rand, ['path', { query: 'q' }, { headers: 'x' }]);
  const kinds: Array<() => Record<string, unknown>> = [
    () => ({ wait: pick(rand, [0, 10, -1, '50', 'function () { return 1; }', true, null]) }),
    () => ({ shellTransform: pick(rand, ['echo {}', ['a'], 3]) }),
    () => ({ decorate: pick(rand, ['function () {}', 1, {}]) }),
    () => ({ copy: maybe(rand, () => ({ from: maybe(rand, from), into: maybe(rand, () => '${X}'), using: maybe(rand, () => using(rand)) })) }),
    () => ({
      lookup: maybe(rand, () => ({
        key: maybe(rand, () => ({ from: maybe(rand, from), using: maybe(rand, () => using(rand)) })),
        fromDataSource: maybe(rand, () => ({
          csv: maybe(rand, () => ({ path: maybe(rand, () => 'x.csv'), keyColumn: maybe(rand, () => 'id'), delimiter: maybe(rand, () => ';') })),
        })),
        into: maybe(rand, () => '${R}'),
      })),
    }),
    () => ({ sparkle: 1 }),
    () => ({ wait: 1, decorate: 'function () {}' }),
  ];
  const made = pick(rand, kinds)();
  for (const key of Object.keys(made)) if (made[key] === undefined) delete made[key];
  return made;
}

test('hand-picked invalid behaviors', () => {
  same([{ wait: -1 }, { wait: true }, { wait: null }, { wait: '' }]);
  same([{ copy: {} }, { copy: [] }, { copy: 'x' }, { copy: null }]);
  same([{ copy: { from: 'path', into: 'x', using: 'regex' } }]);
  same([{ copy: { from: { query: 'a', b: 1 }, into: 1, using: { method: 'css', selector: 1 } } }]);
  same([{ lookup: { key: { from: 'path' }, fromDataSource: { db: {} }, into: '${R}' } }]);
  same([{ lookup: { key: 'x', fromDataSource: { csv: { path: 1, delimiter: 2 } }, into: [] } }]);
  same([{ lookup: { key: { from: 'path', using: { method: 'regex', selector: '.' } }, fromDataSource: { csv: 'x' }, into: '${R}' } }]);
  same([{ shellTransform: ['a'] }, { decorate: 1 }, { sparkle: true }, { wait: 1, decorate: 'x' }, {}]);
});

test('random behavior lists (seeded): same messages in the same order', () => {
  const rand = random(20261121);
  for (let i = 0; i < 400; i += 1) {
    const list = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => entry(rand));
    same(list);
  }
  assert.ok(compared > 300, `only ${compared} lists could be compared`);
});

test.run();

/**
 * Issue 19 items 4 and 5: JournalRing.page finds the first entry past the cursor by bisection (a poll
 * costs what it returns) and the ring holds no slot array until something is recorded. Property: after
 * any mix of appends (past capacity), filtered clears and full clears, page() returns exactly what a
 * scan of every entry would, with the same cursor and truncation flag.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { JournalRing } from '../../../engine/journal/index.js';

const test = suite('reliability: journal ring pages');

type Op = { kind: 'append'; value: number } | { kind: 'clearOdd' } | { kind: 'clear' };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 0, max: 99 }).map((value) => ({ kind: 'append' as const, value })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clearOdd' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

test('page() equals a full scan after appends, evictions and clears (fast-check, seeded)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 9 }), fc.array(op, { maxLength: 60 }), fc.integer({ min: 0, max: 70 }), (capacity, ops, since) => {
      const ring = new JournalRing<number>(capacity);
      for (const o of ops) {
        if (o.kind === 'append') ring.append(o.value);
        else if (o.kind === 'clearOdd') ring.clear((v) => v % 2 === 1);
        else ring.clear();
      }
      const all = ring.all();
      for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.index < all[i]!.index);
      const even = (v: number) => v % 2 === 0;
      for (const cursor of [undefined, since]) {
        const page = ring.page(cursor, even);
        assert.equal(
          page.entries,
          all.filter((e) => e.index > (cursor ?? 0) && even(e.value)),
        );
        assert.is(page.nextIndex, ring.tipIndex);
      }
      return true;
    }),
    { seed: 194, numRuns: 400 },
  );
});

test('the cursor past the tip returns nothing; truncation is reported for evicted entries only', () => {
  const ring = new JournalRing<string>(3);
  for (const v of ['a', 'b', 'c', 'd', 'e']) ring.append(v);
  assert.equal(ring.page(5, () => true).entries, []);
  assert.is(ring.page(1, () => true).truncated, true);
  assert.equal(
    ring.page(2, () => true).entries.map((e) => e.value),
    ['c', 'd', 'e'],
  );
  assert.is(ring.page(2, () => true).truncated, false);
});

test.run();

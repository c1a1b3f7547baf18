import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CallTable } from '../../../engine/threads/index.js';

test('CallTable: set, get, has, delete and size, as a Map of calls by id', () => {
  const table = new CallTable<{ name: string }>();
  assert.is(table.size, 0);
  const a = { name: 'a' };
  table.set(1, a);
  table.set(2, { name: 'b' });
  table.set(1, a);
  assert.is(table.size, 2, 'setting an id again does not count it twice');
  assert.is(table.get(1), a);
  assert.ok(table.has(2));
  assert.not.ok(table.has(3));
  assert.is(table.get(3), undefined);
  assert.ok(table.delete(1));
  assert.not.ok(table.delete(1), 'a second delete finds nothing');
  assert.is(table.size, 1);
  assert.is(table.get(1), undefined);
});

test('CallTable: values in id order, a snapshot the caller may change the table under', () => {
  const table = new CallTable<number>();
  for (const id of [30, 2, 1000, 7]) table.set(id, id * 10);
  const seen: number[] = [];
  for (const value of table.values()) {
    seen.push(value);
    table.delete(value / 10);
  }
  assert.equal(seen, [20, 70, 300, 10000]);
  assert.is(table.size, 0);
});

test('CallTable: many short-lived calls with growing ids leave nothing behind; clear empties it', () => {
  const table = new CallTable<object>();
  for (let id = 1; id <= 100_000; id++) {
    table.set(id, {});
    if (id > 50) table.delete(id - 50);
  }
  assert.is(table.size, 50);
  assert.equal(table.values().length, 50);
  table.clear();
  assert.is(table.size, 0);
  assert.equal(table.values(), []);
});

test.run();

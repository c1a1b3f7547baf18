/**
 * The host ⇄ worker wire format: batches of length-prefixed fields must carry any text unchanged
 * (colons, digits, empty strings, non-ASCII), and sources cross once then by number.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createWireReader, readReplies, ReplyBatch, WireBatch, type RunMessage } from '../../../../engine/script/js/protocol.js';

const test = suite('script-js: wire protocol');

function readAll(batches: string[]): { runs: RunMessage[]; forgotten: number[] } {
  const runs: RunMessage[] = [];
  const forgotten: number[] = [];
  const read = createWireReader({ run: (m) => runs.push(m), forget: (scope) => forgotten.push(scope) });
  for (const batch of batches) read(batch);
  return { runs, forgotten };
}

test('runs, sources and forgets round-trip in order with awkward text', () => {
  const source = 'function (c) { return { body: "12:34 ünïcødé 😀" }; }';
  const request = JSON.stringify({ path: '/a:b', body: '5:hello', headers: { 'X-Empty': '' } });
  const batch = new WireBatch();
  batch.source(0, source);
  batch.run({ id: 7, scope: 4545, kind: 'inject', source, request, deadline: 1700000000123, timeoutMs: 300 }, 0);
  batch.forget(4546);
  batch.run({ id: 8, scope: 4545, kind: 'decorate', source, request: '', response: '{"statusCode":201}', deadline: 1, timeoutMs: 2 }, 0);
  assert.not.ok(batch.empty);
  const wire = batch.take();
  assert.ok(batch.empty, 'take empties the batch');
  const { runs, forgotten } = readAll([wire]);
  assert.equal(forgotten, [4546]);
  assert.equal(runs, [
    { id: 7, scope: 4545, kind: 'inject', source, request, deadline: 1700000000123, timeoutMs: 300 },
    { id: 8, scope: 4545, kind: 'decorate', source, request: '', response: '{"statusCode":201}', deadline: 1, timeoutMs: 2 },
  ]);
});

test('a source sent in an earlier batch is found by number; forgetSources starts over', () => {
  const first = new WireBatch();
  first.source(0, 'function () { return 1; }');
  first.run({ id: 1, scope: 1, kind: 'wait', source: '', request: '{}', deadline: 1, timeoutMs: 1 }, 0);
  const second = new WireBatch();
  second.run({ id: 2, scope: 1, kind: 'wait', source: '', request: '{}', deadline: 1, timeoutMs: 1 }, 0);
  second.forgetSources();
  second.source(0, 'function () { return 2; }');
  second.run({ id: 3, scope: 1, kind: 'wait', source: '', request: '{}', deadline: 1, timeoutMs: 1 }, 0);
  const { runs } = readAll([first.take(), second.take()]);
  assert.equal(
    runs.map((r) => r.source),
    ['function () { return 1; }', 'function () { return 1; }', 'function () { return 2; }'],
  );
});

test('replies carry results, timeouts, failures and log lines', () => {
  const replies = new ReplyBatch();
  replies.add(1, { ok: true, json: '{"body":"a:1"}' }, []);
  replies.add(2, { ok: true, json: '' }, [['info', ['x', '{"y":1}']]]);
  replies.add(3, { ok: false, timeout: true, message: 'late: 300 ms' }, []);
  replies.add(4, { ok: false, timeout: false, kind: 'recursion', message: '' }, [['warn', ['']]]);
  assert.equal(readReplies(replies.take()), [
    { id: 1, outcome: { ok: true, json: '{"body":"a:1"}' }, logs: undefined },
    { id: 2, outcome: { ok: true, json: '' }, logs: [['info', ['x', '{"y":1}']]] },
    { id: 3, outcome: { ok: false, timeout: true, message: 'late: 300 ms' }, logs: undefined },
    { id: 4, outcome: { ok: false, timeout: false, kind: 'recursion', message: '' }, logs: [['warn', ['']]] },
  ]);
  assert.ok(replies.empty);
});

test.run();

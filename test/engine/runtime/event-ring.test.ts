/**
 * The metric event ring between an engine thread and main (engine/runtime/event-ring.ts), both sides
 * in one thread: every event replayed once, in order, with its labels and measured value; one message
 * per drain, not per event; a full ring refuses (the thread posts the event instead); a key announced
 * after main drained its channel is learnt from the channel during the drain.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventReader, EventRing } from '../../../engine/runtime/event-ring.js';
import type { EventKey, ObserverEvent } from '../../../engine/runtime/protocol.js';

const test = suite('runtime per-core: metric event ring');

interface Pair {
  ring: EventRing;
  reader: EventReader;
  /** Keys announced and not yet learnt by the reader (the control channel). */
  channel: EventKey[];
  nudges: number;
  replayed: Array<[number, ObserverEvent]>;
  drain(): void;
}

function pair(): Pair {
  const reader = new EventReader();
  const p: Pair = {
    reader,
    channel: [],
    nudges: 0,
    replayed: [],
    ring: new EventRing(
      (key) => p.channel.push(key),
      () => p.nudges++,
    ),
    drain: () => {
      const learn = (): void => {
        for (const key of p.channel.splice(0)) reader.learn(key);
      };
      learn();
      reader.drain((id, event) => p.replayed.push([id, event]), learn);
    },
  };
  return p;
}

const latency = (ruleId: string, ms: number): ObserverEvent => ({ name: 'onLatencyInjected', args: [ruleId, ms] });
const fault = (ruleId: string): ObserverEvent => ({ name: 'onFault', args: ['latency', ruleId, '_svc.fault'] });

test('events are replayed once, in order, with their labels and values; a key is announced once', () => {
  const p = pair();
  const events: Array<[number, ObserverEvent]> = [
    [1, fault('a')],
    [1, latency('a', 2.5)],
    [2, fault('b')],
    [1, fault('a')],
    [1, latency('a', 7)],
    [2, { name: 'onScript', args: ['b', 'ok', 0.25] }],
    [2, { name: 'onErrorStatus', args: [503, 'b'] }],
  ];
  for (const [id, event] of events) assert.ok(p.ring.add(id, event));
  assert.is(p.channel.length, 5, 'one key per listener, event and labels');
  p.drain();
  assert.equal(p.replayed, events);
  p.drain();
  assert.is(p.replayed.length, events.length, 'nothing twice');
});

test('one nudge per drain, however many events wait', () => {
  const p = pair();
  for (let i = 0; i < 100; i++) p.ring.add(1, latency('a', i));
  assert.is(p.nudges, 1);
  p.drain();
  assert.is(p.replayed.length, 100);
  p.ring.add(1, latency('a', 1));
  p.ring.add(1, latency('a', 2));
  assert.is(p.nudges, 2, 'the first event after a drain nudges again');
});

test('a full ring refuses the event; once drained it takes them again, across the wrap', () => {
  const p = pair();
  let taken = 0;
  while (p.ring.add(1, latency('a', taken))) taken++;
  assert.is(taken, 1 << 14);
  p.drain();
  assert.is(p.replayed.length, taken);
  assert.equal(p.replayed.at(-1), [1, latency('a', taken - 1)]);
  for (let i = 0; i < 3 * taken; i++) {
    assert.ok(p.ring.add(1, latency('a', i)));
    if (i % 1000 === 999) p.drain();
  }
  p.drain();
  assert.is(p.replayed.length, 4 * taken);
  assert.equal(p.replayed.at(-1), [1, latency('a', 3 * taken - 1)]);
});

test('a key announced after the channel was read is learnt during the drain', () => {
  const p = pair();
  p.ring.add(1, fault('a'));
  // Main reads its channel, then the thread announces a new key and writes its entry before the ring is read.
  for (const key of p.channel.splice(0)) p.reader.learn(key);
  p.ring.add(1, fault('b'));
  p.reader.drain(
    (id, event) => p.replayed.push([id, event]),
    () => {
      for (const key of p.channel.splice(0)) p.reader.learn(key);
    },
  );
  assert.equal(p.replayed, [
    [1, fault('a')],
    [1, fault('b')],
  ]);
});

test('a listener closed: its keys go on both sides, and its next event is announced again', () => {
  const p = pair();
  p.ring.add(7, fault('a'));
  p.drain();
  p.ring.drop(7);
  p.reader.forget(7);
  p.ring.add(7, fault('a'));
  assert.is(p.channel.length, 1);
  p.drain();
  assert.equal(p.replayed, [
    [7, fault('a')],
    [7, fault('a')],
  ]);
});

test('a key number is never reused after a listener closed: the other listeners keep their keys', () => {
  const p = pair();
  p.ring.add(7, fault('a'));
  p.ring.add(8, fault('b'));
  p.drain();
  p.ring.drop(7);
  p.reader.forget(7);
  p.ring.add(9, fault('c'));
  p.ring.add(8, fault('b'));
  p.drain();
  assert.equal(p.replayed.slice(2), [
    [9, fault('c')],
    [8, fault('b')],
  ]);
});

test('label arguments that concatenate alike are different keys', () => {
  const p = pair();
  const one: ObserverEvent = { name: 'onErrorStatus', args: [503, 'a b'] };
  const two: ObserverEvent = { name: 'onScriptError', args: ['a', 'b 2:x'] };
  const three: ObserverEvent = { name: 'onScriptError', args: ['a b', '2:x'] };
  for (const event of [one, two, three]) p.ring.add(1, event);
  assert.is(p.channel.length, 3);
  p.drain();
  assert.equal(
    p.replayed.map(([, event]) => event),
    [one, two, three],
  );
});

test('a drain asked for during a drain (the nudge on the channel) replays nothing twice', () => {
  const p = pair();
  p.ring.add(1, fault('a'));
  p.ring.add(1, fault('b'));
  for (const key of p.channel.splice(0)) p.reader.learn(key);
  p.reader.drain(
    (id, event) => {
      p.replayed.push([id, event]);
      p.reader.drain(
        (i, e) => p.replayed.push([i, e]),
        () => undefined,
      );
    },
    () => undefined,
  );
  assert.is(p.replayed.length, 2);
});

test.run();

/**
 * Metric events an engine thread makes (fault, script, proxy and flow store observer calls) without a
 * message per event: the thread writes each into a ring in shared memory, as the key it announced once
 * on its control channel (the listener, the event's name and its label arguments) and the one number
 * that varies (a delay, a duration). The main thread replays them to the imposter's observers whenever
 * it drains the thread: before a journal read or a metrics scrape, and when the thread's one message
 * says entries wait (sent when an entry finds the ring drained, so a busy thread sends one per drain,
 * not one per event). An event is in the ring before the response it belongs to is written, so a
 * scrape made after the client read the response counts it.
 */
import type { EventKey, ObserverEvent } from './protocol.js';

/** Entries of the ring (a power of two); each is two float64s: the key and the value. */
const CAPACITY = 1 << 14;
const MASK = CAPACITY - 1;
/** Int32 header: [0] entries written, [1] entries read (both wrap; their difference is what waits). */
const HEAD_BYTES = 8;

/** The argument that is a measured number (not a label) of each event, if any: sent as the entry's value. */
const VALUE_AT: Record<ObserverEvent['name'], number> = {
  onFault: -1,
  onUpstream: 2,
  onProxy: 2,
  onLatencyInjected: 1,
  onErrorStatus: -1,
  onFlowStateOp: -1,
  onScript: 2,
  onScriptError: -1,
};

/** The engine thread's side: one writer. */
export class EventRing {
  private readonly buffer = new SharedArrayBuffer(HEAD_BYTES + CAPACITY * 16);
  private readonly head = new Int32Array(this.buffer, 0, 2);
  private readonly slots = new Float64Array(this.buffer, HEAD_BYTES);
  /** `${listener} ${name}` and each label argument with its length (no two label lists read alike) → key number. */
  private readonly keys = new Map<string, number>();
  /** Never reused: main may still hold a dropped listener's key numbers until it forgets them. */
  private nextKey = 0;

  constructor(
    /** Posts a new key on the control channel (the ring itself goes with the first). */
    private readonly announce: (key: EventKey) => void,
    /** Asks main to drain (posted when an entry finds the ring drained). */
    private readonly nudge: () => void,
  ) {}

  /** Writes the event; false when the ring is full (the caller posts it as a message instead). */
  add(id: number, event: ObserverEvent): boolean {
    const written = this.head[0]!;
    if (((written - Atomics.load(this.head, 1)) | 0) >= CAPACITY) return false;
    const valueAt = VALUE_AT[event.name];
    const args = event.args as ReadonlyArray<string | number | boolean>;
    let name = `${id} ${event.name}`;
    for (let at = 0; at < args.length; at++) {
      if (at === valueAt) continue;
      const label = String(args[at]);
      name += ` ${label.length}:${label}`;
    }
    let key = this.keys.get(name);
    if (key === undefined) {
      key = this.nextKey++;
      this.keys.set(name, key);
      const labels = args.slice();
      if (valueAt >= 0) labels[valueAt] = 0;
      // Announced before the first entry, so a reader that sees the entry can learn its key; the ring goes with key 0.
      this.announce({ key, id, name: event.name, args: labels, valueAt, ...(key === 0 ? { ring: this.buffer } : {}) });
    }
    const at = (written & MASK) * 2;
    this.slots[at] = key;
    this.slots[at + 1] = valueAt >= 0 ? (args[valueAt] as number) : 0;
    Atomics.store(this.head, 0, (written + 1) | 0);
    // The only entry waiting (read after the store: main, which stores `read` before it reads `written`
    // again, either takes this entry or leaves it for this message): one message brings main to drain
    // the ring, however many entries follow before it does.
    if (((written + 1 - Atomics.load(this.head, 1)) | 0) === 1) this.nudge();
    return true;
  }

  /** A listener closed: its keys go (main has replayed its entries or drops them). */
  drop(id: number): void {
    const prefix = `${id} `;
    for (const name of this.keys.keys()) if (name.startsWith(prefix)) this.keys.delete(name);
  }
}

/** The main thread's side, one per engine thread generation: the one reader. */
export class EventReader {
  private head: Int32Array | undefined;
  private slots: Float64Array | undefined;
  private readonly keys = new Map<number, EventKey>();
  private draining = false;

  learn(key: EventKey): void {
    if (key.ring) {
      this.head = new Int32Array(key.ring, 0, 2);
      this.slots = new Float64Array(key.ring, HEAD_BYTES);
    }
    this.keys.set(key.key, key);
  }

  /** A listener closed and its entries were replayed: its keys go. */
  forget(id: number): void {
    for (const [number, key] of this.keys) if (key.id === id) this.keys.delete(number);
  }

  /**
   * Replays every entry written so far. `learnMore` takes the control channel's messages (an entry's
   * key may have been announced after the caller drained it, since it is always announced first).
   */
  drain(replay: (id: number, event: ObserverEvent) => void, learnMore: () => void): void {
    const { head, slots } = this;
    // learnMore may ask for a drain again (the thread's nudge): the one under way takes those entries too.
    if (head === undefined || slots === undefined || this.draining) return;
    this.draining = true;
    try {
      let read = head[1]!;
      // `written` is read again after the last `read` is stored: an entry the thread wrote meanwhile is taken (EventRing.add).
      for (let written = Atomics.load(head, 0); read !== written; written = Atomics.load(head, 0)) {
        for (; read !== written; read = (read + 1) | 0) {
          const at = (read & MASK) * 2;
          const number = slots[at]!;
          const value = slots[at + 1]!;
          // Stored before the replay (the slot may be written again from here): an observer that throws leaves the ring consistent.
          Atomics.store(head, 1, (read + 1) | 0);
          let key = this.keys.get(number);
          if (key === undefined) {
            learnMore();
            key = this.keys.get(number);
            if (key === undefined) continue;
          }
          const args = key.args.slice();
          if (key.valueAt >= 0) args[key.valueAt] = value;
          replay(key.id, { name: key.name, args } as ObserverEvent);
        }
      }
    } finally {
      this.draining = false;
    }
  }
}

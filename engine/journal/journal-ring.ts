/**
 * Bounded per-imposter journal with stable 1-based indices (SPEC §2.9, §4.4, §8).
 * Indices never reset: clearing and eviction only move the window.
 */
export interface JournalEntry<T> {
  index: number;
  value: T;
}

export interface JournalPage<T> {
  entries: Array<JournalEntry<T>>;
  /** Cursor for the next `since`: the tip, i.e. the highest index recorded (0 when nothing ever was), even for a `since` past it. */
  nextIndex: number;
  /** True when entries newer than the cursor were evicted before being read. */
  truncated: boolean;
}

export class JournalRing<T> {
  private readonly slots: Array<JournalEntry<T> | undefined>;
  private head = 0;
  private size = 0;
  private lastIndex = 0;
  /** Highest index dropped by eviction (not by clearing): what `x-svc-truncated` is about. */
  private evictedThrough = 0;

  constructor(readonly capacity = 10_000) {
    this.slots = new Array(capacity);
  }

  get count(): number {
    return this.size;
  }

  get tipIndex(): number {
    return this.lastIndex;
  }

  append(value: T): JournalEntry<T> {
    const entry = { index: ++this.lastIndex, value };
    if (this.size === this.capacity) {
      const evicted = this.slots[this.head];
      if (evicted) this.evictedThrough = evicted.index;
      this.slots[this.head] = entry;
      this.head = (this.head + 1) % this.capacity;
    } else {
      this.slots[(this.head + this.size) % this.capacity] = entry;
      this.size += 1;
    }
    return entry;
  }

  /** Entries in index order. */
  all(): Array<JournalEntry<T>> {
    const out: Array<JournalEntry<T>> = [];
    for (let i = 0; i < this.size; i += 1) out.push(this.slots[(this.head + i) % this.capacity] as JournalEntry<T>);
    return out;
  }

  /** Entries with index > since (all when since is undefined), filtered; cursor semantics of SPEC §4.4. */
  page(since: number | undefined, keep: (value: T) => boolean): JournalPage<T> {
    const from = since ?? 0;
    const entries = this.all().filter((e) => e.index > from && keep(e.value));
    const truncated = since !== undefined && this.evictedThrough > since;
    // The real tip, not max(since, tip): a client holding a cursor from before a restart reconciles.
    return { entries, nextIndex: this.lastIndex, truncated };
  }

  /** Removes entries that satisfy `drop` (all when omitted); indices keep counting. */
  clear(drop?: (value: T) => boolean): number {
    const kept = drop ? this.all().filter((e) => !drop(e.value)) : [];
    const removed = this.size - kept.length;
    this.slots.fill(undefined);
    this.head = 0;
    this.size = kept.length;
    kept.forEach((e, i) => {
      this.slots[i] = e;
    });
    return removed;
  }
}

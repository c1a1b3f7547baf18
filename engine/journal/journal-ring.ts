/**
 * Bounded per-imposter journal with stable 1-based indices (docs/recording-and-verify.md, §4.4, §8).
 * Indices never reset: clearing and eviction only move the window.
 */
export interface JournalEntry<T> {
  index: number;
  value: T;
}

export interface JournalPage<T> {
  entries: Array<JournalEntry<T>>;
  /**
   * Cursor for the next `since`: the tip, i.e. the highest index recorded (0 when nothing ever was), even for a `since` past it.
   * Undefined for a degraded read (a fleet journal missing records it could not store, docs/runtime.md).
   */
  nextIndex: number | undefined;
  /** True when entries newer than the cursor were evicted before being read. */
  truncated: boolean;
}

/**
 * The entries sit in index order from `head`, wrapping; the slot array grows as entries arrive (an
 * imposter that does not record holds none) and wraps only once full, so `head` is 0 until then.
 */
export class JournalRing<T> {
  private slots: Array<JournalEntry<T>> = [];
  private head = 0;
  private size = 0;
  private lastIndex = 0;
  /** Highest index dropped by eviction (not by clearing): what `x-svc-truncated` is about. */
  private evictedThrough = 0;
  /** A fleet mirror with records missing (Redis unreachable, records it could not store): reads are degraded. */
  gap = false;

  constructor(readonly capacity = 10_000) {}

  get count(): number {
    return this.size;
  }

  get tipIndex(): number {
    return this.lastIndex;
  }

  append(value: T): JournalEntry<T> {
    const entry = { index: ++this.lastIndex, value };
    if (this.size === this.capacity) {
      this.evictedThrough = this.slots[this.head]!.index;
      this.slots[this.head] = entry;
      this.head = (this.head + 1) % this.capacity;
    } else {
      this.slots[this.size] = entry;
      this.size += 1;
    }
    return entry;
  }

  /**
   * A fleet mirror (engine/fleet) takes entries with the indices Redis gave them, ascending past the tip;
   * `evicted` is what the shared stream dropped by retention, `tip` the highest index it handed out.
   */
  mirror(entries: ReadonlyArray<JournalEntry<T>>, evicted: number, tip: number): void {
    for (const entry of entries) {
      if (entry.index <= this.lastIndex) continue;
      this.lastIndex = entry.index - 1;
      this.append(entry.value);
    }
    if (evicted > this.evictedThrough) this.evictedThrough = evicted;
    if (tip > this.lastIndex) this.lastIndex = tip;
    // Entries the stream dropped before this mirror saw them leave the window too.
    if (this.size > 0 && this.at(0).index <= evicted) {
      const kept = this.all().filter((e) => e.index > evicted);
      this.slots = kept;
      this.head = 0;
      this.size = kept.length;
    }
  }

  /** A fleet mirror starting over (the shared journal was cleared somewhere): every entry is read again. */
  restart(): void {
    this.clear();
    this.lastIndex = 0;
  }

  private at(position: number): JournalEntry<T> {
    return this.slots[(this.head + position) % this.capacity]!;
  }

  /** Entries in index order. */
  all(): Array<JournalEntry<T>> {
    const out = new Array<JournalEntry<T>>(this.size);
    for (let i = 0; i < this.size; i += 1) out[i] = this.at(i);
    return out;
  }

  /**
   * Entries with index > since (all when since is undefined), filtered; cursor semantics of docs/recording-and-verify.md.
   * Indices ascend along the ring, so the first one past `since` is found by bisection: a poll costs
   * what it returns, not the journal's size.
   */
  page(since: number | undefined, keep: (value: T) => boolean): JournalPage<T> {
    const from = since ?? 0;
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.at(middle).index > from) high = middle;
      else low = middle + 1;
    }
    const entries: Array<JournalEntry<T>> = [];
    for (let i = low; i < this.size; i += 1) {
      const entry = this.at(i);
      if (keep(entry.value)) entries.push(entry);
    }
    if (this.gap) return { entries, nextIndex: undefined, truncated: true };
    const truncated = since !== undefined && this.evictedThrough > since;
    // The real tip, not max(since, tip): a client holding a cursor from before a restart reconciles.
    return { entries, nextIndex: this.lastIndex, truncated };
  }

  /** Removes entries that satisfy `drop` (all when omitted); indices keep counting. */
  clear(drop?: (value: T) => boolean): number {
    const kept = drop ? this.all().filter((e) => !drop(e.value)) : [];
    const removed = this.size - kept.length;
    this.slots = kept;
    this.head = 0;
    this.size = kept.length;
    return removed;
  }
}

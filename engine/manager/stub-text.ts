import type { Imposter, LiveStub } from './imposter.js';

/**
 * The `stubs` array of the imposter detail (and of its replayable form, the data directory's file) as
 * UTF-8, kept from one rendering to the next so that a stub edit's reply costs the stubs it changed, not
 * the imposter: each stub's JSON is serialised once per config (while its response count holds), and the
 * array's bytes are kept in one growing buffer that an append extends in place and a replacement splices
 * (the unchanged stubs after it are copied as bytes). Bytes already handed to a reply are never written
 * again (a reply may still be on its way out of the socket): an edit before them starts a new buffer.
 */

const STUB_INDENT = '\n    ';
const STUB_CLOSE = `${STUB_INDENT}}`;
const CLOSE_BYTES = Buffer.from(STUB_CLOSE);
const SEPARATOR = Buffer.from(`,${STUB_INDENT}`);
/** After the index digits of a stub's `_links.self.href`. */
const LINK_END = Buffer.from(`"${STUB_INDENT}    }${STUB_INDENT}  }${STUB_CLOSE}`);

/** JSON of `value` as it sits in the detail's `stubs` array (two-space indent, nested two levels). */
export function indentedStub(value: unknown): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', STUB_INDENT);
}

/** One config's text without its closing brace, valid while the config holds `responses` responses. */
interface StubText {
  responses: number;
  open: Buffer;
  /** A response holds a proxy recording time, which the replayable form leaves out. */
  timed: boolean;
}

const stubTexts = new WeakMap<object, StubText>();

/** Proxy recording (proxyAlways) appends responses to a live config: the count tells a stale text. */
function responseCount(config: Record<string, unknown>): number {
  return Array.isArray(config.responses) ? config.responses.length : -1;
}

/** The kept text of `config`, or undefined for shapes whose link cannot be appended before the closing brace. */
function stubText(config: Record<string, unknown>): StubText | undefined {
  const responses = responseCount(config);
  const cached = stubTexts.get(config);
  if (cached?.responses === responses) return cached;
  if (Object.hasOwn(config, 'matches') || Object.hasOwn(config, '_links')) return undefined;
  const text = indentedStub(config);
  if (!text.endsWith(STUB_CLOSE)) return undefined;
  const entry = { responses, open: Buffer.from(text.slice(0, -STUB_CLOSE.length)), timed: hasRecordingTime(config) };
  stubTexts.set(config, entry);
  return entry;
}

function hasRecordingTime(config: Record<string, unknown>): boolean {
  const responses = config.responses;
  if (!Array.isArray(responses)) return false;
  return responses.some((response) => {
    const is = (response as { is?: unknown } | null)?.is;
    return typeof is === 'object' && is !== null && '_proxyResponseTime' in is;
  });
}

export interface LinkSpec {
  /** `${baseUrl}/imposters/{port}/stubs/` as JSON, without its closing quote; undefined renders no `_links`. */
  href: string | undefined;
  /**
   * The replayable form (no `--debug` matches, no proxy recording times): a stub's text depends on its
   * config alone, never on the imposter's stub list versions (it is rendered before an edit is applied).
   */
  replayable?: boolean;
  /** The stub built as an object (rare shapes, `--debug` matches, recording times): renderImposter's key order exactly. */
  slow(index: number): string;
}

/** A segment's parts before a rewrite, whose tail is copied into the new bytes. */
interface KeptParts {
  bytes: Buffer;
  length: number;
  starts: number[];
  stubs: Array<LiveStub | undefined>;
  responses: number[];
}

/** Writes the decimal digits of `value` (a non-negative integer) to end just before `end`. */
function writeDigits(bytes: Buffer, end: number, value: number): void {
  let at = end;
  do {
    bytes[--at] = 0x30 + (value % 10);
    value = Math.floor(value / 10);
  } while (value > 0);
}

class StubsSegment {
  bytes = Buffer.alloc(0);
  length = 0;
  /** Bytes handed to a reply: never written again. */
  sealed = 0;
  /** Where each stub's part starts (its leading separator included). */
  starts: number[] = [];
  /** The stub each part was written from (undefined: written the slow way, rewritten every time). */
  stubs: Array<LiveStub | undefined> = [];
  /** Each part's response count when written. */
  responses: number[] = [];
  /** The imposter's `responsesAdded` when the parts were last checked. */
  responsesAdded = 0;
  /** The stub list (array) and `stubsVersion` the parts were last brought up to date with. */
  list: readonly LiveStub[] | undefined;
  version = -1;
  readonly linkHead: Buffer | undefined;

  constructor(
    readonly href: string | undefined,
    readonly replayable: boolean,
  ) {
    this.linkHead = href === undefined ? undefined : Buffer.from(`,${STUB_INDENT}  "_links": {${STUB_INDENT}    "self": {${STUB_INDENT}      "href": ${href}`);
  }

  /** Room for `more` bytes after `length`, in a new buffer when this one is full. */
  private reserve(more: number): void {
    const need = this.length + more;
    if (need <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(need, 2 * this.bytes.length, 4096));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
    this.sealed = 0;
  }

  private put(chunk: Uint8Array): void {
    this.reserve(chunk.length);
    this.bytes.set(chunk, this.length);
    this.length += chunk.length;
  }

  /** Drops the parts from stub `from` on; bytes a reply holds move to a new buffer first. */
  private truncate(from: number): void {
    const cut = from < this.starts.length ? this.starts[from]! : this.length;
    this.starts.length = from;
    this.stubs.length = from;
    this.responses.length = from;
    if (cut < this.sealed) {
      const fresh = Buffer.allocUnsafe(this.bytes.length);
      this.bytes.copy(fresh, 0, 0, cut);
      this.bytes = fresh;
      this.sealed = 0;
    }
    this.length = cut;
  }

  private append(index: number, stub: LiveStub, links: LinkSpec): void {
    this.starts.push(this.length);
    if (index > 0) this.put(SEPARATOR);
    const text = this.replayable || stub.matches === undefined ? stubText(stub.config) : undefined;
    if (text === undefined || (this.replayable && text.timed)) {
      this.stubs.push(undefined);
      this.responses.push(-1);
      this.put(Buffer.from(links.slow(index)));
      return;
    }
    this.stubs.push(stub);
    this.responses.push(text.responses);
    this.put(text.open);
    if (this.linkHead === undefined) {
      this.put(CLOSE_BYTES);
      return;
    }
    this.put(this.linkHead);
    const digits = String(index);
    this.reserve(digits.length);
    this.length += this.bytes.write(digits, this.length, 'latin1');
    this.put(LINK_END);
  }

  /** The first part (from `from`) whose stub is not the one `stubs` holds there, or whose response count changed. */
  private firstChange(imposter: Imposter, stubs: readonly LiveStub[], from: number): number {
    const known = this.stubs;
    const kept = Math.min(known.length, stubs.length);
    while (from < kept && known[from] === stubs[from]) from++;
    if (this.responsesAdded !== imposter.responsesAdded) {
      for (let index = 0; index < from; index++) {
        if (this.responses[index] !== responseCount(stubs[index]!.config)) return index;
      }
    }
    return from;
  }

  /**
   * How many parts at the end can be kept as bytes after the parts from `from` are rewritten: the same
   * stubs at the same distance from the end, at the same index where their text holds it (`_links`).
   */
  private keptTail(imposter: Imposter, stubs: readonly LiveStub[], from: number): number {
    const known = this.stubs;
    // A proxy recording may have added responses to any stub: the tail is not compared for that.
    if (this.responsesAdded !== imposter.responsesAdded) return 0;
    let tail = 0;
    const most = Math.min(known.length, stubs.length) - from;
    while (tail < most && known[known.length - 1 - tail] !== undefined && known[known.length - 1 - tail] === stubs[stubs.length - 1 - tail]) tail++;
    return tail;
  }

  /**
   * Brings the parts up to date with `stubs`, from the first one that changed. Stubs are compared by
   * identity in the two arrays alone (reading each stub object would cost a cache miss per stub, most
   * of an edit's budget at 10,000 stubs), and not at all where the imposter says which it kept. The
   * unchanged stubs after an edit are copied as bytes.
   */
  sync(imposter: Imposter, stubs: readonly LiveStub[], links: LinkSpec): void {
    const kept = Math.min(this.stubs.length, stubs.length);
    // The list the parts were written from, or the one a change made from it (its leading stubs kept): no comparing those.
    // The replayable form is rendered from a list not yet applied: only identity tells.
    let from = stubs === this.list ? kept : !this.replayable && imposter.stubsVersion === this.version + 1 ? Math.min(imposter.stubsKept, kept) : 0;
    this.list = stubs;
    this.version = imposter.stubsVersion;
    let tail = 0;
    // `--debug` matches grow while serving: they change the detail's text in place.
    if (imposter.options.debugMatches && !this.replayable) from = 0;
    else {
      from = this.firstChange(imposter, stubs, from);
      tail = this.keptTail(imposter, stubs, from);
      this.responsesAdded = imposter.responsesAdded;
    }
    if (from === stubs.length && from === this.stubs.length) return;
    if (tail === 0) {
      this.truncate(from);
      for (let index = from; index < stubs.length; index++) this.append(index, stubs[index]!, links);
      return;
    }
    // The kept tail is copied from the old buffer, which the rewrite leaves alone (it moves to a new one).
    const old = { bytes: this.bytes, length: this.length, starts: this.starts, stubs: this.stubs, responses: this.responses };
    const first = old.stubs.length - tail;
    this.bytes = Buffer.allocUnsafe(Math.max(4096, this.length + 1024));
    this.sealed = 0;
    this.length = old.starts[from] ?? old.length;
    old.bytes.copy(this.bytes, 0, 0, this.length);
    this.starts = old.starts.slice(0, from);
    this.stubs = old.stubs.slice(0, from);
    this.responses = old.responses.slice(0, from);
    const index = stubs.length - tail;
    for (let at = from; at < index; at++) this.append(at, stubs[at]!, links);
    this.putTail(old, first, index);
  }

  /** Copies the old parts from `first` on as the parts from `index` on, with or without the leading separator their new place needs. */
  private putTail(old: KeptParts, first: number, index: number): void {
    const separated = first > 0;
    const skip = separated && index === 0 ? SEPARATOR.length : 0;
    const add = !separated && index > 0 ? SEPARATOR.length : 0;
    const at = this.length;
    const from = old.starts[first]!;
    if (add > 0) this.put(SEPARATOR);
    if (this.linkHead !== undefined && index !== first) {
      this.relinkTail(old, first, index, skip);
      this.starts[this.starts.length - (old.stubs.length - first)] = at;
      return;
    }
    this.put(old.bytes.subarray(from + skip, old.length));
    const shift = at + add - skip - from;
    for (let part = first; part < old.stubs.length; part++) {
      // The first part starts where its separator (or, without one, its text) begins; the others keep their offsets.
      this.starts.push(part === first ? at : old.starts[part]! + shift);
      this.stubs.push(old.stubs[part]);
      this.responses.push(old.responses[part]!);
    }
  }

  /**
   * The old parts from `first` on as the parts from `index` on, each with its new index in its link.
   * Parts whose old and new indexes have as many digits keep their length: they are copied as one run
   * and their digits overwritten in place (an edit at the top of 10,000 stubs relinks them all).
   */
  private relinkTail(old: KeptParts, first: number, index: number, skip: number): void {
    const parts = old.stubs.length;
    const shift = index - first;
    // The first part gains or loses its leading separator.
    this.relinkPart(old, first, index, skip);
    let part = first + 1;
    while (part < parts) {
      const oldDigits = String(part).length;
      const newDigits = String(part + shift).length;
      let end = part + 1;
      const oldBound = 10 ** oldDigits;
      const newBound = 10 ** newDigits;
      while (end < parts && end < oldBound && end + shift < newBound) end++;
      if (oldDigits !== newDigits) {
        for (; part < end; part++) this.relinkPart(old, part, part + shift, 0);
        continue;
      }
      const from = old.starts[part]!;
      const to = end < parts ? old.starts[end]! : old.length;
      this.reserve(to - from);
      const moved = this.length - from;
      this.length += old.bytes.copy(this.bytes, this.length, from, to);
      for (; part < end; part++) {
        const partEnd = part + 1 < parts ? old.starts[part + 1]! : old.length;
        writeDigits(this.bytes, partEnd + moved - LINK_END.length, part + shift);
        this.starts.push(old.starts[part]! + moved);
        this.stubs.push(old.stubs[part]);
        this.responses.push(old.responses[part]!);
      }
    }
  }

  /** Old part `part` copied on its own as part `index` (from `skip` bytes in), with its new index in its link. */
  private relinkPart(old: KeptParts, part: number, index: number, skip: number): void {
    const start = old.starts[part]! + skip;
    const end = part + 1 < old.stubs.length ? old.starts[part + 1]! : old.length;
    // Every kept part was written the fast way: its text ends with the index digits and LINK_END.
    const digitsAt = end - LINK_END.length - String(part).length;
    const digits = String(index);
    this.starts.push(this.length);
    this.stubs.push(old.stubs[part]);
    this.responses.push(old.responses[part]!);
    this.reserve(digitsAt - start + digits.length + LINK_END.length);
    this.length += old.bytes.copy(this.bytes, this.length, start, digitsAt);
    this.length += this.bytes.write(digits, this.length, 'latin1');
    this.bytes.set(LINK_END, this.length);
    this.length += LINK_END.length;
  }

  /** The bytes of every part, sealed: later edits leave them as they are. */
  take(): Buffer {
    this.sealed = this.length;
    return this.bytes.subarray(0, this.length);
  }
}

/** Per imposter, one segment per link base (and one for the replayable form). */
const segments = new WeakMap<Imposter, Map<string, StubsSegment>>();

/**
 * The text between the detail's `"stubs": [` + indent and its closing `\n  ]` (empty for no stubs),
 * with each stub's `_links` when `links.href` is given, for `stubs` (the imposter's list, or one about
 * to be applied when `links.replayable`).
 */
export function stubsText(imposter: Imposter, stubs: readonly LiveStub[], links: LinkSpec): Buffer {
  let kept = segments.get(imposter);
  if (kept === undefined) segments.set(imposter, (kept = new Map()));
  const replayable = links.replayable === true;
  const key = replayable ? 'replayable' : `links ${links.href ?? ''}`;
  let segment = kept.get(key);
  if (segment === undefined || segment.href !== links.href) {
    // The detail's link base is the admin request's: a client switching hosts must not pile up segments.
    if (!replayable) for (const other of kept.keys()) if (other !== 'replayable') kept.delete(other);
    segment = new StubsSegment(links.href, replayable);
    kept.set(key, segment);
  }
  segment.sync(imposter, stubs, links);
  return segment.take();
}

export const STUBS_OPEN = `[${STUB_INDENT}`;
export const STUBS_CLOSE = '\n  ]';

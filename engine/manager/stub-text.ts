import type { Imposter, LiveStub } from './imposter.js';

/**
 * The `stubs` array of the imposter detail as UTF-8, kept from one reply to the next so that a stub
 * edit's reply costs the stubs it changed, not the imposter: each stub's JSON is serialised once per
 * config (while its response count holds), and the array's bytes are kept in one growing buffer that an
 * append extends in place. Bytes already handed to a reply are never written again (a reply may still be
 * on its way out of the socket): an edit before them starts a new buffer.
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
  const entry = { responses, open: Buffer.from(text.slice(0, -STUB_CLOSE.length)) };
  stubTexts.set(config, entry);
  return entry;
}

export interface LinkSpec {
  /** `${baseUrl}/imposters/{port}/stubs/` as JSON, without its closing quote; undefined renders no `_links`. */
  href: string | undefined;
  /** The stub built as an object (rare shapes, `--debug` matches): renderImposter's key order exactly. */
  slow(index: number): string;
}

class StubsSegment {
  bytes = Buffer.alloc(0);
  length = 0;
  /** Bytes handed to a reply: never written again. */
  sealed = 0;
  /** Where each stub's part starts (its leading separator included). */
  readonly starts: number[] = [];
  /** The stub each part was written from (undefined: written the slow way, rewritten every time). */
  readonly stubs: Array<LiveStub | undefined> = [];
  /** Each part's response count when written. */
  readonly responses: number[] = [];
  /** The imposter's `responsesAdded` when the parts were last checked. */
  responsesAdded = 0;
  /** The stub list (array) and `stubsVersion` the parts were last brought up to date with. */
  list: readonly LiveStub[] | undefined;
  version = -1;
  readonly linkHead: Buffer | undefined;

  constructor(readonly href: string | undefined) {
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
    const text = stub.matches === undefined ? stubText(stub.config) : undefined;
    if (text === undefined) {
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

  /**
   * Brings the parts up to date with the imposter's stubs, from the first one that changed. Stubs are
   * compared by identity in the two arrays alone (reading each stub object would cost a cache miss per
   * stub, most of an edit's budget at 10,000 stubs), and not at all where the imposter says which it kept.
   */
  sync(imposter: Imposter, links: LinkSpec): void {
    const stubs = imposter.stubs;
    const kept = Math.min(this.stubs.length, stubs.length);
    // The list the parts were written from, or the one a change made from it (its leading stubs kept): no comparing those.
    let from = stubs === this.list ? kept : imposter.stubsVersion === this.version + 1 ? Math.min(imposter.stubsKept, kept) : 0;
    this.list = stubs;
    this.version = imposter.stubsVersion;
    // `--debug` matches grow while serving; a proxy recording appends responses to a live stub: both change text in place.
    if (imposter.options.debugMatches) from = 0;
    else {
      const known = this.stubs;
      while (from < kept && known[from] === stubs[from]) from++;
      if (this.responsesAdded !== imposter.responsesAdded) {
        this.responsesAdded = imposter.responsesAdded;
        for (let index = 0; index < from; index++) {
          if (this.responses[index] !== responseCount(stubs[index]!.config)) {
            from = index;
            break;
          }
        }
      }
    }
    if (from === stubs.length && from === this.stubs.length) return;
    this.truncate(from);
    for (let index = from; index < stubs.length; index++) this.append(index, stubs[index]!, links);
  }

  /** The bytes of every part, sealed: later edits leave them as they are. */
  take(): Buffer {
    this.sealed = this.length;
    return this.bytes.subarray(0, this.length);
  }
}

const segments = new WeakMap<Imposter, StubsSegment>();

/**
 * The text between the detail's `"stubs": [` + indent and its closing `\n  ]` (empty for no stubs),
 * with each stub's `_links` when `links.href` is given.
 */
export function stubsText(imposter: Imposter, links: LinkSpec): Buffer {
  let segment = segments.get(imposter);
  if (segment === undefined || segment.href !== links.href) {
    segment = new StubsSegment(links.href);
    segments.set(imposter, segment);
  }
  segment.sync(imposter, links);
  return segment.take();
}

export const STUBS_OPEN = `[${STUB_INDENT}`;
export const STUBS_CLOSE = '\n  ]';

/**
 * A compiled stub set: first match in index order (SPEC 2.1), visiting only the candidates the
 * index allows. Evaluation stays synchronous unless a visited stub holds an `inject` predicate.
 * A traced match (recorded requests, docs/recording-and-verify.md) also reports the stubs the index skipped, in index
 * order; only the first TRIED_CAP entries are shown, so only those are evaluated for their reason.
 */
import type { MockRequest } from '../model/index.js';
import { compileNode, type CompiledNode } from './compile-predicate.js';
import { PredicateError } from './errors.js';
import { RequestView } from './request-view.js';
import { hasIndexableStub, nextCandidate, StubIndex } from './stub-index.js';
import { TRIED_CAP, type MatchContext, type StubSetMatcher, type TriedEntry } from './types.js';

export interface StubSetOptions {
  /** Build the candidate index (default true); false gives the plain linear scan. */
  readonly index?: boolean;
  /**
   * The matcher of the stub list before this change: when the new list only appends stubs to it (same
   * predicate lists, in order), its compiled stubs and index are reused and only the new stubs are added.
   */
  readonly previous?: StubSetMatcher;
  /**
   * The caller vouches that the first `unchanged` stubs are `previous`'s, as they were: when that is all
   * of `previous`, only the stubs after them are read (no identity check of the earlier ones).
   */
  readonly unchanged?: number;
  /**
   * With `unchanged`: the caller also vouches that the last `tailKept` stubs are `previous`'s last ones
   * (an edit inside the list): only the stubs between are compiled, and the index is spliced.
   */
  readonly tailKept?: number;
}

interface CompiledStub {
  readonly predicates: readonly CompiledNode[];
}

function compileStub(predicates: unknown): CompiledStub {
  // mountebank reads `stub.predicates || []`, then calls .every on it.
  if (!predicates) return { predicates: [] };
  if (!Array.isArray(predicates)) {
    const error = new PredicateError('predicates must be an array', predicates);
    return {
      predicates: [
        {
          evaluate: () => {
            throw error;
          },
        },
      ],
    };
  }
  return { predicates: predicates.map(compileNode) };
}

/** Index of the first failing predicate, or -1 when all pass; a Promise only once an inject answers with one. */
function firstFailure(stub: CompiledStub, view: RequestView, ctx: MatchContext): number | Promise<number> {
  const { predicates } = stub;
  for (let i = 0; i < predicates.length; i++) {
    const result = predicates[i]!.evaluate(view, ctx);
    if (typeof result !== 'boolean') return finishFailure(predicates, i, result, view, ctx);
    if (!result) return i;
  }
  return -1;
}

async function finishFailure(
  predicates: readonly CompiledNode[],
  at: number,
  pending: Promise<boolean>,
  view: RequestView,
  ctx: MatchContext,
): Promise<number> {
  if (!(await pending)) return at;
  for (let i = at + 1; i < predicates.length; i++) {
    if (!(await predicates[i]!.evaluate(view, ctx))) return i;
  }
  return -1;
}

class CompiledStubSet implements StubSetMatcher {
  readonly size: number;
  /** The index's version when this set was built: a later splice moved its stubs (then every stub is scanned). */
  private readonly indexVersion: number;

  constructor(
    readonly predicates: readonly unknown[],
    readonly stubs: readonly CompiledStub[],
    /** Shared with the matchers that extend this one; this one reads only its first `size` stubs. */
    readonly index: StubIndex | undefined,
    readonly indexed: boolean,
  ) {
    this.size = stubs.length;
    this.indexVersion = index?.version ?? 0;
  }

  /** The index when it still holds this set's stubs where they are. */
  get usableIndex(): StubIndex | undefined {
    return this.index?.version === this.indexVersion ? this.index : undefined;
  }

  /** True when `predicates` starts with this set's stubs, by identity. */
  isPrefixOf(predicates: readonly unknown[]): boolean {
    if (predicates.length < this.size) return false;
    for (let i = 0; i < this.size; i++) if (predicates[i] !== this.predicates[i]) return false;
    return true;
  }

  firstMatch(request: MockRequest, ctx: MatchContext, from = 0, trace?: TriedEntry[]): number | Promise<number> {
    const view = new RequestView(request);
    const candidates = this.usableIndex?.candidates(view, this.size);
    return this.scan(view, ctx, candidates, Math.max(0, from), trace);
  }

  private next(candidates: Uint32Array | undefined, from: number): number {
    if (candidates === undefined) return from < this.size ? from : -1;
    return nextCandidate(candidates, from);
  }

  /**
   * Traces the stubs in [from, to) the index skipped as a linear scan would have: eligibility first,
   * then the first failing predicate. An index-skipped stub fails within its never-throwing literal
   * prefix (stub-index.ts), so this runs no inject and no throwing predicate.
   */
  private traceSkipped(view: RequestView, ctx: MatchContext, from: number, to: number, trace: TriedEntry[]): void {
    for (let i = from; i < to; i++) {
      if (trace.length >= TRIED_CAP) {
        trace.push({ stubIndex: i, why: { reason: 'failedPredicate' } });
        continue;
      }
      const eligibility = ctx.isEligible?.(i) ?? 'ok';
      if (eligibility !== 'ok') trace.push({ stubIndex: i, why: { reason: eligibility } });
      else trace.push({ stubIndex: i, why: { reason: 'failedPredicate', predicateIndex: firstFailure(this.stubs[i]!, view, ctx) as number } });
    }
  }

  private scan(
    view: RequestView,
    ctx: MatchContext,
    candidates: Uint32Array | undefined,
    from: number,
    trace: TriedEntry[] | undefined,
  ): number | Promise<number> {
    const skipped = trace !== undefined && candidates !== undefined;
    let unseen = from;
    for (let i = this.next(candidates, from); i !== -1; i = this.next(candidates, i + 1)) {
      if (skipped) this.traceSkipped(view, ctx, unseen, i, trace);
      unseen = i + 1;
      if (ctx.isEligible) {
        const eligibility = ctx.isEligible(i);
        if (eligibility !== 'ok') {
          trace?.push({ stubIndex: i, why: { reason: eligibility } });
          continue;
        }
      }
      const failed = firstFailure(this.stubs[i]!, view, ctx);
      if (typeof failed !== 'number') return this.resume(view, ctx, candidates, i, failed, trace);
      if (failed === -1) return i;
      trace?.push({ stubIndex: i, why: { reason: 'failedPredicate', predicateIndex: failed } });
    }
    if (skipped) this.traceSkipped(view, ctx, unseen, this.size, trace);
    return -1;
  }

  private async resume(
    view: RequestView,
    ctx: MatchContext,
    candidates: Uint32Array | undefined,
    at: number,
    pending: Promise<number>,
    trace: TriedEntry[] | undefined,
  ): Promise<number> {
    const failed = await pending;
    if (failed === -1) return at;
    trace?.push({ stubIndex: at, why: { reason: 'failedPredicate', predicateIndex: failed } });
    return this.scan(view, ctx, candidates, at + 1, trace);
  }
}

/** Compiled once per predicate list (never changed in place once compiled): an edit recompiles only the stubs it brings. */
const compiledCache = new WeakMap<object, CompiledStub>();

function compiledStub(predicates: unknown): CompiledStub {
  if (typeof predicates !== 'object' || predicates === null) return compileStub(predicates);
  let compiled = compiledCache.get(predicates);
  if (compiled === undefined) {
    compiled = compileStub(predicates);
    compiledCache.set(predicates, compiled);
  }
  return compiled;
}

/** The first `size` items of `list` followed by `more`: `list` itself, grown, when `inPlace`; else a copy. */
function appended<T>(list: readonly T[], size: number, inPlace: boolean, more: readonly T[]): T[] {
  const out = inPlace ? (list as T[]) : list.slice(0, size);
  for (const item of more) out.push(item);
  return out;
}

export function compileStubSet(stubs: ReadonlyArray<{ predicates?: unknown }>, options: StubSetOptions = {}): StubSetMatcher {
  const indexed = options.index !== false;
  const previous = options.previous;
  if (previous instanceof CompiledStubSet && previous.indexed === indexed && options.tailKept) {
    const spliced = splicedSet(previous, stubs, options.unchanged ?? 0, options.tailKept);
    if (spliced) return spliced;
  }
  const vouched = previous instanceof CompiledStubSet && options.unchanged === previous.size && previous.size > 0;
  // The latest set built on its arrays is extended in place (a set reads only its first `size` stubs), as its index is.
  const inPlace = vouched && previous.indexed === indexed && previous.predicates.length === previous.size && previous.stubs.length === previous.size;
  // Reading every stub's predicates is a cache miss per stub: a vouched prefix takes them from `previous`.
  const predicates = vouched
    ? appended(
        previous.predicates,
        previous.size,
        inPlace,
        stubs.slice(previous.size).map((stub) => stub.predicates),
      )
    : stubs.map((stub) => stub.predicates);
  if (previous instanceof CompiledStubSet && previous.indexed === indexed && (vouched || previous.isPrefixOf(predicates))) {
    const added = predicates.slice(previous.size);
    const compiled = appended(previous.stubs, previous.size, inPlace, added.map(compiledStub));
    let index = previous.usableIndex;
    // The shared index may already hold stubs a sibling matcher appended: it must end where this list's prefix ends.
    if (index !== undefined && index.length === previous.size) index.append(added);
    else if (index !== undefined) index = StubIndex.build(predicates);
    // No index before: none of the earlier stubs had an indexable constraint.
    else if (indexed && hasIndexableStub(added)) index = StubIndex.build(predicates);
    return new CompiledStubSet(predicates, compiled, index, indexed);
  }
  const compiled = predicates.map(compiledStub);
  const index = indexed && hasIndexableStub(predicates) ? StubIndex.build(predicates) : undefined;
  return new CompiledStubSet(predicates, compiled, index, indexed);
}

/**
 * `previous` with its stubs `[kept, size - tailKept)` replaced by `stubs`' between the kept ones: the index
 * is spliced in place when `previous` is the latest set built on it (else undefined: built afresh).
 */
function splicedSet(previous: CompiledStubSet, stubs: ReadonlyArray<{ predicates?: unknown }>, kept: number, tailKept: number): CompiledStubSet | undefined {
  const end = previous.size - tailKept;
  if (kept > end || kept + tailKept > stubs.length) return undefined;
  const index = previous.usableIndex;
  if (previous.index !== undefined && (index === undefined || index.length !== previous.size)) return undefined;
  const added = stubs.slice(kept, stubs.length - tailKept).map((stub) => stub.predicates);
  const predicates = [...previous.predicates.slice(0, kept), ...added, ...previous.predicates.slice(end, previous.size)];
  const compiled = [...previous.stubs.slice(0, kept), ...added.map(compiledStub), ...previous.stubs.slice(end, previous.size)];
  if (index !== undefined) {
    index.splice(kept, previous.predicates.slice(kept, end), added);
    return new CompiledStubSet(predicates, compiled, index, previous.indexed);
  }
  // No index before: none of the kept stubs had an indexable constraint.
  const built = previous.indexed && hasIndexableStub(added) ? StubIndex.build(predicates) : undefined;
  return new CompiledStubSet(predicates, compiled, built, previous.indexed);
}

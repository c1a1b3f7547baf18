/**
 * The candidate index must never change the winner: randomized stub sets and requests are matched
 * with the index and with a plain linear scan and must agree (errors included). Also checks the
 * hot path stays synchronous, that index-excluded stubs are never visited by an untraced match, and
 * that a traced one (recorded requests) still reports them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileStubSet, TRIED_CAP, type MatchContext, type TriedEntry } from '../../../engine/match/index.js';
import type { MockRequest } from '../../../engine/model/request.js';
import { mockRequest } from '../../support/match-request.js';

/** Small deterministic PRNG (mulberry32) so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(20240611);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
const maybe = (p = 0.5) => random() < p;

const METHODS = ['GET', 'get', 'POST', 'Put', 'DELETE'];
const PATHS = ['/', '/a', '/A', '/a/b', '/item/1', '/item/2', '/Item/1', '/api/x', '/API/y', ''];
const PREFIXES = ['/a', '/item', '/API', '/', '/x'];
const HEADER_NAMES = ['X-A', 'x-a', 'Content-Type', 'X-B'];
const HEADER_VALUES = ['one', 'ONE', 'two', 'application/json', ''];
const QUERY_VALUES = ['1', '2', 'A', 'a'];
const BODIES = ['', '{"a":"x"}', '{"a":5}', 'x', '{"n":1}', '[{"a":"x"}]'];
const REGEXES = ['^/a', 'item/\\d', '(', 'B$', '.*'];

function params(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (maybe(0.3)) out.caseSensitive = maybe();
  if (maybe(0.2)) out.keyCaseSensitive = maybe();
  return out;
}

function leafPredicate(): Record<string, unknown> {
  switch (Math.floor(random() * 14)) {
    case 0:
      return { equals: { method: pick(METHODS) }, ...params() };
    case 1:
      return { equals: { path: pick(PATHS) }, ...params() };
    case 2:
      return { deepEquals: { path: pick(PATHS) }, ...params() };
    case 3:
      return { equals: { method: pick(METHODS), path: pick(PATHS) }, ...params() };
    case 4:
      return { startsWith: { path: pick(PREFIXES) }, ...params() };
    case 5:
      return { equals: { headers: { [pick(HEADER_NAMES)]: pick(HEADER_VALUES) } }, ...params() };
    case 6:
      return { deepEquals: { query: maybe() ? { q: pick(QUERY_VALUES) } : {} }, ...params() };
    case 7:
      return { equals: { query: { q: maybe(0.8) ? pick(QUERY_VALUES) : [pick(QUERY_VALUES), pick(QUERY_VALUES)] } }, ...params() };
    case 8:
      return { matches: { path: pick(REGEXES) }, ...params() };
    case 9:
      return { contains: { body: { a: 'x' } } };
    case 10:
      return { equals: { path: pick(PATHS) }, except: '\\d' };
    case 11:
      return { exists: { headers: { [pick(HEADER_NAMES)]: maybe() } } };
    case 12:
      return { equals: { body: { n: 1 } } };
    default:
      return { equals: { method: pick(METHODS) }, exists: { query: true } };
  }
}

function predicate(depth = 0): Record<string, unknown> {
  const roll = random();
  if (depth < 2 && roll < 0.12) return { and: [predicate(depth + 1), predicate(depth + 1)] };
  if (depth < 2 && roll < 0.2) return { or: [predicate(depth + 1), predicate(depth + 1)] };
  if (depth < 2 && roll < 0.27) return { not: predicate(depth + 1) };
  return leafPredicate();
}

function stubs(count: number): Array<{ predicates?: unknown[] }> {
  return Array.from({ length: count }, () => {
    if (maybe(0.05)) return {};
    return { predicates: Array.from({ length: 1 + Math.floor(random() * 3) }, () => predicate()) };
  });
}

function request(): MockRequest {
  const headers: Record<string, string | string[]> = {};
  for (const name of ['X-A', 'Content-Type', 'X-B']) {
    if (maybe(0.4)) headers[maybe(0.2) ? name.toLowerCase() : name] = maybe(0.2) ? [pick(HEADER_VALUES), pick(HEADER_VALUES)] : pick(HEADER_VALUES);
  }
  const query: Record<string, string | string[]> = {};
  if (maybe(0.5)) query[maybe(0.2) ? 'Q' : 'q'] = maybe(0.2) ? [pick(QUERY_VALUES), pick(QUERY_VALUES)] : pick(QUERY_VALUES);
  return mockRequest({ method: pick(METHODS), path: pick(PATHS), headers, query, body: pick(BODIES) });
}

function outcome(run: () => number | Promise<number>): string {
  try {
    const result = run();
    if (typeof result !== 'number') return 'promise';
    return String(result);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

test('index and linear scan agree on randomized stub sets', () => {
  let compared = 0;
  let hits = 0;
  for (let round = 0; round < 300; round++) {
    const set = stubs(1 + Math.floor(random() * 40));
    const indexed = compileStubSet(set);
    const linear = compileStubSet(set, { index: false });
    const skipped = new Set(set.map((_, i) => i).filter(() => maybe(0.1)));
    const ctx: MatchContext = maybe(0.3) ? { isEligible: (i) => (skipped.has(i) ? 'skippedScenarioState' : 'ok') } : {};
    for (let r = 0; r < 30; r++) {
      const req = request();
      const from = maybe(0.2) ? Math.floor(random() * set.length) : 0;
      const indexedTrace: TriedEntry[] = [];
      const linearTrace: TriedEntry[] = [];
      const a = outcome(() => indexed.firstMatch(req, ctx, from));
      const b = outcome(() => linear.firstMatch(req, ctx, from, linearTrace));
      const label = `stubs ${JSON.stringify(set)} request ${JSON.stringify({ ...req, rawBody: undefined })} from ${from}`;
      assert.is(a, b, label);
      // Traced, the indexed set reports what the linear scan reports (entries past the cap are only counted).
      assert.is(
        outcome(() => indexed.firstMatch(req, ctx, from, indexedTrace)),
        b,
        label,
      );
      assert.equal(indexedTrace.slice(0, TRIED_CAP), linearTrace.slice(0, TRIED_CAP), label);
      assert.equal(
        indexedTrace.map((entry) => entry.stubIndex),
        linearTrace.map((entry) => entry.stubIndex),
        label,
      );
      compared++;
      if (/^\d+$/.test(a)) hits++;
    }
  }
  assert.ok(compared === 9000 && hits > 1000, `too few hits to be meaningful (${hits})`);
});

/** A context counting the stubs a match visits (each visit asks for eligibility first). */
function visitCounter(): { ctx: MatchContext; visited: number[] } {
  const visited: number[] = [];
  return {
    visited,
    ctx: {
      isEligible: (i) => {
        visited.push(i);
        return 'ok';
      },
    },
  };
}

test('400 literal stubs: the last one is found without visiting the others; a traced match reports them all', () => {
  const set = Array.from({ length: 400 }, (_, i) => ({ predicates: [{ equals: { method: 'GET', path: `/item/${i}` } }] }));
  const matcher = compileStubSet(set);
  const counter = visitCounter();
  assert.is(matcher.firstMatch(mockRequest({ path: '/item/399' }), counter.ctx), 399);
  assert.equal(counter.visited, [399]);
  const trace: TriedEntry[] = [];
  assert.is(matcher.firstMatch(mockRequest({ path: '/item/399' }), {}, 0, trace), 399);
  assert.equal(
    trace.slice(0, TRIED_CAP),
    Array.from({ length: TRIED_CAP }, (_, i) => ({ stubIndex: i, why: { reason: 'failedPredicate', predicateIndex: 0 } })),
  );
  assert.equal(
    trace.map((entry) => entry.stubIndex),
    Array.from({ length: 399 }, (_, i) => i),
    'every earlier stub is counted',
  );
  assert.is(matcher.firstMatch(mockRequest({ path: '/ITEM/7' }), {}), 7);
  assert.is(matcher.firstMatch(mockRequest({ method: 'POST', path: '/item/7' }), {}), -1);
  const linearTrace: TriedEntry[] = [];
  compileStubSet(set, { index: false }).firstMatch(mockRequest({ path: '/item/399' }), {}, 0, linearTrace);
  assert.is(linearTrace.length, 399);
});

test('a stub excluded by the index never runs its regexes', () => {
  // Evaluating the bad regex would throw; the method literal (a later, safe predicate) excludes the stub first.
  const set = [{ predicates: [{ equals: { method: 'POST' } }, { matches: { path: '(' } }] }, { predicates: [{ equals: { path: '/x' } }] }];
  assert.is(compileStubSet(set).firstMatch(mockRequest({ path: '/x' }), {}), 1);
  assert.throws(() => compileStubSet(set).firstMatch(mockRequest({ method: 'POST', path: '/x' }), {}), /Invalid regular expression/);
});

test('a predicate that may throw keeps later literals out of the index', () => {
  // mountebank evaluates the contains first and answers 500 for a JSON number; so must we.
  const set = [{ predicates: [{ contains: { body: { a: 'x' } } }, { equals: { method: 'POST' } }] }, {}];
  assert.throws(() => compileStubSet(set).firstMatch(mockRequest({ body: '{"a":5}' }), {}));
  assert.is(compileStubSet(set).firstMatch(mockRequest({ body: '{"a":"y"}' }), {}), 1);
});

test('startsWith, header and query literals narrow candidates', () => {
  const set = [
    { predicates: [{ startsWith: { path: '/api' } }] },
    { predicates: [{ equals: { headers: { 'X-Tenant': 'blue' } } }] },
    { predicates: [{ equals: { query: { q: 'Z' } } }] },
    { predicates: [{ and: [{ equals: { method: 'PUT' } }, { equals: { path: '/p' } }] }] },
    {},
  ];
  const matcher = compileStubSet(set);
  const visits = (req: MockRequest) => {
    const counter = visitCounter();
    return { found: matcher.firstMatch(req, counter.ctx), visited: counter.visited };
  };
  assert.equal(visits(mockRequest({ path: '/API/v1' })), { found: 0, visited: [0] });
  assert.equal(visits(mockRequest({ headers: { 'x-tenant': ['red', 'BLUE'] } })), { found: 1, visited: [1] });
  assert.equal(visits(mockRequest({ query: { q: ['x', 'z'] } })), { found: 2, visited: [2] });
  assert.equal(visits(mockRequest({ method: 'PUT', path: '/p' })), { found: 3, visited: [3] });
  assert.equal(visits(mockRequest({ path: '/other' })), { found: 4, visited: [4] });
});

test('firstMatch is synchronous without inject and asynchronous only when an inject answers with a Promise', async () => {
  const plain = compileStubSet([{ predicates: [{ equals: { path: '/a' } }] }, { predicates: [{ matches: { body: 'x' } }] }]);
  assert.type(plain.firstMatch(mockRequest({ path: '/b' }), {}), 'number');
  const withInject = compileStubSet([{ predicates: [{ equals: { path: '/a' } }] }, { predicates: [{ inject: 'fn' }] }, {}]);
  assert.is(withInject.firstMatch(mockRequest({ path: '/a' }), {}), 0);
  assert.is(withInject.firstMatch(mockRequest({ path: '/b' }), { injectPredicate: () => false }), 2);
  const pending = withInject.firstMatch(mockRequest({ path: '/b' }), { injectPredicate: async (source) => source === 'fn' });
  assert.instance(pending, Promise);
  assert.is(await pending, 1);
  const trace: TriedEntry[] = [];
  assert.is(await withInject.firstMatch(mockRequest({ path: '/b' }), { injectPredicate: async () => false }, 0, trace), 2);
  // Stub 0 is excluded by its path literal; the traced match still reports it.
  assert.equal(trace, [
    { stubIndex: 0, why: { reason: 'failedPredicate', predicateIndex: 0 } },
    { stubIndex: 1, why: { reason: 'failedPredicate', predicateIndex: 0 } },
  ]);
  assert.throws(() => withInject.firstMatch(mockRequest({ path: '/b' }), {}), /injection not available/);
});

test('eligibility skips are traced in visit order and `from` starts later', () => {
  const set = [
    { predicates: [{ equals: { path: '/a' } }] },
    { predicates: [{ equals: { method: 'GET' } }, { matches: { path: 'nope' } }] },
    { predicates: [{ equals: { path: '/a' } }] },
    {},
  ];
  const matcher = compileStubSet(set);
  const trace: TriedEntry[] = [];
  const ctx: MatchContext = { isEligible: (i) => (i === 0 ? 'skippedSpace' : i === 2 ? 'skippedScenarioState' : 'ok') };
  assert.is(matcher.firstMatch(mockRequest({ path: '/a' }), ctx, 0, trace), 3);
  assert.equal(trace, [
    { stubIndex: 0, why: { reason: 'skippedSpace' } },
    { stubIndex: 1, why: { reason: 'failedPredicate', predicateIndex: 1 } },
    { stubIndex: 2, why: { reason: 'skippedScenarioState' } },
  ]);
  assert.is(matcher.firstMatch(mockRequest({ path: '/a' }), {}, 1), 2);
  assert.is(matcher.firstMatch(mockRequest({ path: '/a' }), {}, 4), -1);
  assert.is(compileStubSet([]).firstMatch(mockRequest(), {}), -1);
});

test.run();

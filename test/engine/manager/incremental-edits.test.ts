/**
 * Issue 19 item 1: stub edits reuse what earlier stubs compiled (matcher, index, warnings, reply text).
 * Properties: a stub list grown one stub at a time matches, warns and renders exactly as the same list
 * built at once; the admin reply (spliced from kept stub texts) is byte for byte what JSON.stringify
 * of the detail writes; and appending to 3,000 stubs stays far below what one full pass costs.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { analyzeStubs, StubAnalysis } from '../../../engine/analysis/index.js';
import { compileStubSet, type StubSetMatcher } from '../../../engine/match/index.js';
import { inProcessForSuite } from '../../support/in-process.js';
import { freePort, http } from '../../support/servers.js';
import { mockRequest } from '../../support/match-request.js';

const test = suite('reliability: incremental stub edits');
const svc = inProcessForSuite(test, { adminTimeoutMs: 300_000 });

const segment = fc.constantFrom('a', 'b', 'ab');
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => `/${parts.join('/')}`);
const predicate = fc.oneof(
  fc.record({ equals: fc.record({ path }) }),
  fc.record({ startsWith: fc.record({ path }) }),
  fc.record({ equals: fc.record({ method: fc.constantFrom('GET', 'POST'), path }) }),
  fc.record({ matches: fc.record({ path: fc.constantFrom('^/a', 'b$') }) }),
  fc.constant({ exists: { body: true } }),
);
const stub = fc.record(
  { id: fc.constantFrom('x', 'y', 'z'), predicates: fc.array(predicate, { maxLength: 2 }), space: fc.constant('s') },
  { requiredKeys: ['predicates'] },
);
const requests = ['/a', '/b', '/a/b', '/ab', '/b/a/ab', '/x'].flatMap((p) => [mockRequest({ path: p }), mockRequest({ method: 'POST', path: p })]);

test('a list grown one stub at a time warns and matches as the list built at once (fast-check, seeded)', () => {
  fc.assert(
    fc.property(fc.array(stub, { maxLength: 40 }), (list) => {
      const analysis = new StubAnalysis();
      let matcher: StubSetMatcher | undefined;
      for (let n = 1; n <= list.length; n++) {
        const prefix = list.slice(0, n);
        assert.equal(analysis.update(prefix), analyzeStubs(prefix));
        matcher = compileStubSet(prefix, { previous: matcher });
        const fresh = compileStubSet(prefix);
        for (const request of requests) assert.is(matcher.firstMatch(request, {}), fresh.firstMatch(request, {}));
      }
      return true;
    }),
    { seed: 19, numRuns: 60 },
  );
});

test('a list edited inside (replace, insert, delete) warns and matches as the list built afresh (fast-check, seeded)', () => {
  const edit = fc.record({ at: fc.nat(), removed: fc.nat({ max: 2 }), inserted: fc.array(stub, { maxLength: 2 }) });
  fc.assert(
    fc.property(fc.array(stub, { maxLength: 30 }), fc.array(edit, { minLength: 1, maxLength: 12 }), (initial, edits) => {
      const analysis = new StubAnalysis();
      let list = initial;
      analysis.update(list);
      let matcher = compileStubSet(list);
      for (const { at: rawAt, removed: rawRemoved, inserted } of edits) {
        const at = list.length === 0 ? 0 : rawAt % (list.length + 1);
        const removed = Math.min(rawRemoved, list.length - at);
        const next = [...list.slice(0, at), ...inserted, ...list.slice(at + removed)];
        const tailKept = list.length - at - removed;
        assert.equal(analysis.update(next, { kept: at, tailKept }), analyzeStubs(next));
        const before = matcher;
        matcher = compileStubSet(next, { previous: matcher, unchanged: at, tailKept });
        const fresh = compileStubSet(next);
        for (const request of requests) assert.is(matcher.firstMatch(request, {}), fresh.firstMatch(request, {}));
        // A matcher built before the splice still answers for its own list.
        for (const request of requests) assert.is(before.firstMatch(request, {}), compileStubSet(list).firstMatch(request, {}));
        list = next;
      }
      return true;
    }),
    { seed: 19, numRuns: 200 },
  );
});

test('an earlier matcher keeps answering for its own stubs after later ones are appended', () => {
  const first = [{ predicates: [{ equals: { path: '/late' } }] }, { predicates: [{ equals: { path: '/a' } }] }];
  const before = compileStubSet(first);
  const after = compileStubSet([...first, ...Array.from({ length: 40 }, (_, i) => ({ predicates: [{ equals: { path: `/n${i}` } }] }))], { previous: before });
  assert.is(before.firstMatch(mockRequest({ path: '/n39' }), {}), -1);
  assert.is(after.firstMatch(mockRequest({ path: '/n39' }), {}), 41);
  assert.is(before.firstMatch(mockRequest({ path: '/a' }), {}), 1);
});

test('vouched appends extend the latest matcher in place; earlier matchers and a branch from one keep their own stubs', () => {
  const stubAt = (path: string) => ({ predicates: [{ equals: { path } }] });
  const base = [stubAt('/a'), stubAt('/b')];
  const first = compileStubSet(base);
  const grown = [...base, stubAt('/c')];
  const second = compileStubSet(grown, { previous: first, unchanged: base.length });
  const third = compileStubSet([...grown, stubAt('/d')], { previous: second, unchanged: grown.length });
  // A branch from `first` (another list grown from the same one): it must not see `second`'s stubs.
  const branch = compileStubSet([...base, stubAt('/d'), stubAt('/c')], { previous: first, unchanged: base.length });
  const answers = (matcher: StubSetMatcher) => ['/a', '/b', '/c', '/d'].map((path) => matcher.firstMatch(mockRequest({ path }), {}));
  assert.equal(answers(first), [0, 1, -1, -1]);
  assert.equal(answers(second), [0, 1, 2, -1]);
  assert.equal(answers(third), [0, 1, 2, 3]);
  assert.equal(answers(branch), [0, 1, 3, 2]);
  assert.equal(answers(compileStubSet([...grown, stubAt('/e')], { previous: second, unchanged: grown.length })), [0, 1, 2, -1]);
  // Unindexed stubs (suffix patterns): an edit inside a set whose arrays a later set extended takes only the set's own stubs.
  const suffix = (end: string) => ({ predicates: [{ matches: { path: `${end}$` } }] });
  const plain = [suffix('a'), suffix('b')];
  const before = compileStubSet(plain);
  compileStubSet([...plain, suffix('c')], { previous: before, unchanged: plain.length });
  const replaced = compileStubSet([suffix('d'), suffix('b')], { previous: before, unchanged: 0, tailKept: 1 });
  assert.equal(answers(replaced), [-1, 1, -1, 0]);
});

test('the stub edit reply is JSON.stringify of the detail, whatever the stubs hold', async () => {
  const port = await freePort();
  const stubs = [
    { predicates: [{ equals: { path: '/é' } }], responses: [{ is: { body: 'ünïcode ✓', headers: { 'X-A': 'b' } } }] },
    { responses: [{ is: { body: 'carries its own matches key' } }], matches: [1] },
    { id: 'given', responses: [{ is: { statusCode: 201 } }, { proxy: { to: 'http://127.0.0.1:1' } }] },
  ];
  const created = await svc.admin('POST', '/imposters', { port, protocol: 'http', name: 'n', _svc: { note: 1 }, stubs });
  assert.is(created.status, 201);
  const edits: Array<[string, string, unknown]> = [
    ['POST', `/imposters/${port}/stubs`, { stub: { predicates: [{ equals: { path: '/x' } }], responses: [{ is: { body: 'x' } }] } }],
    ['POST', `/imposters/${port}/stubs`, { index: 0, stub: { responses: [{ is: { body: 'first' } }] } }],
    ['PUT', `/imposters/${port}/stubs/2`, { responses: [{ is: { body: 'replaced' } }] }],
    ['DELETE', `/imposters/${port}/stubs/1`, undefined],
  ];
  for (const [method, url, body] of edits) {
    const reply = await svc.admin(method, url, body);
    assert.is(reply.status, 200, reply.body);
    assert.is(reply.body, JSON.stringify(JSON.parse(reply.body), null, 2));
    const detail = await svc.admin('GET', `/imposters/${port}`);
    assert.is(reply.body, detail.body);
    assert.is(detail.body, JSON.stringify(svc.manager.render(port, { baseUrl: `http://127.0.0.1:${svc.adminPort}` }), null, 2));
  }
});

test('the kept stub text follows every kind of edit, both link bases and proxy recordings', async () => {
  const backend = await svc.createImposter({ stubs: [{ responses: [{ is: { body: 'from backend' } }] }] });
  const port = await freePort();
  const proxy = { proxy: { to: `http://127.0.0.1:${backend}`, mode: 'proxyAlways', predicateGenerators: [{ matches: { path: true } }] } };
  const stubOf = (path: string) => ({ predicates: [{ equals: { path } }], responses: [{ is: { body: path } }] });
  assert.is((await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs: [stubOf('/a'), stubOf('/b'), { responses: [proxy] }] })).status, 201);
  const base = `http://127.0.0.1:${svc.adminPort}`;
  const expectDetail = async (step: string, host?: string) => {
    const res = await http('GET', `${base}/imposters/${port}`, host ? { headers: { Host: host } } : {});
    const baseUrl = `http://${host ?? `127.0.0.1:${svc.adminPort}`}`;
    assert.is(res.body, JSON.stringify(svc.manager.render(port, { baseUrl }), null, 2), step);
  };
  const edits: Array<[string, string, unknown]> = [
    ['POST', `/imposters/${port}/stubs`, { stub: stubOf('/c') }],
    ['POST', `/imposters/${port}/stubs`, { index: 0, stub: stubOf('/first') }],
    ['PUT', `/imposters/${port}/stubs/2`, stubOf('/replaced')],
    ['DELETE', `/imposters/${port}/stubs/4`, undefined],
    ['DELETE', `/imposters/${port}/stubs/0`, undefined],
    ['POST', `/imposters/${port}/stubs`, { stub: stubOf('/d') }],
    ['PUT', `/imposters/${port}/stubs`, { stubs: [stubOf('/a'), { responses: [proxy] }, stubOf('/e')] }],
  ];
  for (const [method, url, body] of edits) {
    const reply = await svc.admin(method, url, body);
    assert.is(reply.status, 200, `${method} ${url}: ${reply.body}`);
    assert.is(reply.body, JSON.stringify(svc.manager.render(port, { baseUrl: base }), null, 2), `${method} ${url}`);
    await expectDetail(`${method} ${url}, another Host`, 'mock.example:8080');
    await expectDetail(`${method} ${url}, back`);
  }
  // proxyAlways records a new stub, then appends the next response for the same path to it.
  for (let i = 0; i < 3; i++) {
    assert.is((await http('GET', `http://127.0.0.1:${port}/recorded`)).body, 'from backend');
    await expectDetail(`after proxied request ${i + 1}`);
  }
  const recorded = JSON.parse((await svc.admin('GET', `/imposters/${port}`)).body) as { stubs: Array<{ responses: unknown[] }> };
  // The recorded stub comes last and holds the three responses: the text of a stub whose responses grew was rewritten.
  assert.equal(
    recorded.stubs.map((s) => s.responses.length),
    [1, 1, 1, 3],
  );
});

test('appending a stub to 3,000 costs a small part of building them (CPU, 5x margin)', async () => {
  const port = await freePort();
  const many = Array.from({ length: 3000 }, (_, i) => ({
    predicates: [{ equals: { method: 'GET', path: `/p/${i}` } }],
    responses: [{ is: { body: `${i}` } }],
  }));
  const build = process.cpuUsage();
  assert.is((await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs: many })).status, 201);
  const buildMs = cpuMs(build);
  for (let i = 0; i < 3; i++) await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { predicates: [{ equals: { path: `/w/${i}` } }], responses: [{}] } });
  const edits = process.cpuUsage();
  for (let i = 0; i < 10; i++)
    await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { predicates: [{ equals: { path: `/e/${i}` } }], responses: [{}] } });
  const editMs = cpuMs(edits) / 10;
  // Each edit still writes the whole detail back (docs/imposters.md); before, it also redid every stub's analysis and compilation.
  assert.ok(editMs < buildMs / 3, `one append cost ${editMs.toFixed(1)} ms CPU, building 3,000 stubs ${buildMs.toFixed(1)} ms`);
  const served = await http('GET', `http://127.0.0.1:${port}/e/9`);
  assert.is(served.status, 200);
});

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

test.run();

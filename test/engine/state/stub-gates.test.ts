/** Unit tests for the pure pieces: stub gates (both store paths), space bodies and placement, field checks. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  MemoryFlowStore,
  NoopFlowStore,
  StubGates,
  spaceInsertIndex,
  spaceStub,
  scenarioNamesFor,
  type FlowStore,
  type GatedRequest,
} from '../../../engine/state/index.js';
import { flowGateProblems, isSvcError } from '../../../engine/model/index.js';

const test = suite('stub gates, space bodies, gate fields');

/** A FlowStore that only answers asynchronously (as redis does), over the memory store. */
class AsyncStore implements FlowStore {
  readonly backend = 'redis' as const;
  reads = 0;
  private readonly inner = new MemoryFlowStore({ ttlSeconds: 60 });
  private hop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  async get(flowId: string, key: string) {
    this.reads += 1;
    await this.hop();
    return this.inner.get(flowId, key);
  }
  async set(flowId: string, key: string, value: unknown) {
    await this.hop();
    return this.inner.set(flowId, key, value);
  }
  exists(flowId: string, key: string) {
    return this.inner.exists(flowId, key);
  }
  delete(flowId: string, key: string) {
    return this.inner.delete(flowId, key);
  }
  incrBy(flowId: string, key: string, by: number) {
    return this.inner.incrBy(flowId, key, by);
  }
  cas(flowId: string, key: string, expected: unknown, next: unknown) {
    return this.inner.cas(flowId, key, expected, next);
  }
  expireFlow(flowId: string, seconds: number) {
    return this.inner.expireFlow(flowId, seconds);
  }
  expireKey(flowId: string, key: string, seconds: number) {
    return this.inner.expireKey(flowId, key, seconds);
  }
  entries(flowId: string) {
    return this.inner.entries(flowId);
  }
  clear(flowId: string) {
    return this.inner.clear(flowId);
  }
  activeFlows() {
    return this.inner.activeFlows();
  }
  close() {
    return this.inner.close();
  }
}

const stubs = [
  { space: 'a', responses: [] },
  { scenarioName: 's', requiredScenarioState: 'Started', newScenarioState: 'Next', responses: [] },
  { scenarioName: 's', required_scenario_state: 'Next', responses: [] },
  { responses: [] },
];

function eligibility(gated: GatedRequest): string[] {
  return stubs.map((_, i) => gated.context.isEligible!(i));
}

test('no gate fields: no gates at all (the hot path pays nothing)', () => {
  assert.is(StubGates.compile([{ responses: [] }, { predicates: [], id: 'x' }]), undefined);
});

test('memory store: synchronous, states read while matching and moved at once', () => {
  const store = new MemoryFlowStore({ ttlSeconds: 60 });
  const gates = StubGates.compile(stubs)!;
  const first = gates.forRequest({}, 'a', store);
  assert.not.instance(first, Promise);
  assert.equal(eligibility(first as GatedRequest), ['ok', 'ok', 'skippedScenarioState', 'ok']);
  assert.is((first as GatedRequest).served(1), undefined, 'no promise on the memory backend');
  const second = gates.forRequest({}, 'a', store) as GatedRequest;
  assert.equal(eligibility(second), ['ok', 'skippedScenarioState', 'ok', 'ok']);
  const other = gates.forRequest({}, 'b', store) as GatedRequest;
  assert.equal(eligibility(other), ['skippedSpace', 'ok', 'skippedScenarioState', 'ok'], 'another flow: own space and own state');
  void store.close();
});

test('asynchronous store: states are read before matching, moves are awaited', async () => {
  const store = new AsyncStore();
  const gates = StubGates.compile(stubs)!;
  const pending = gates.forRequest({ injectPredicate: () => true }, 'a', store);
  assert.instance(pending, Promise);
  const gated = await pending;
  assert.is(store.reads, 1, 'one read per required scenario');
  assert.type(gated.context.injectPredicate, 'function', 'the base context is kept');
  assert.equal(eligibility(gated), ['ok', 'ok', 'skippedScenarioState', 'ok']);
  const moved = gated.served(1);
  assert.instance(moved, Promise);
  assert.is(await moved, true);
  assert.is(gated.served(3), undefined, 'a stub that moves nothing');
  assert.equal(eligibility(await gates.forRequest({}, 'a', store)), ['ok', 'skippedScenarioState', 'ok', 'ok']);
  await store.close();
});

test('asynchronous store: a move from a state that changed meanwhile does not apply (compare-and-set)', async () => {
  const store = new AsyncStore();
  const gates = StubGates.compile(stubs)!;
  const first = await gates.forRequest({}, 'a', store);
  const second = await gates.forRequest({}, 'a', store);
  assert.is(await first.served(1), true, 'Started -> Next');
  assert.is(await second.served(1), false, 'matched under Started, which is gone');
  await store.set('a', '__scenario:s', 'Started');
  const third = await gates.forRequest({}, 'a', store);
  assert.is(await third.served(1), true, 'an explicitly stored Started is the state it was read as');
  await store.close();
});

test('asynchronous store without required states: nothing to read, synchronous', async () => {
  const store = new AsyncStore();
  const gated = StubGates.compile([{ space: 'a', responses: [] }])!.forRequest({}, 'a', store);
  assert.not.instance(gated, Promise);
  assert.is(store.reads, 0);
  await store.close();
});

test('a noop store never remembers a move', async () => {
  const store = new NoopFlowStore();
  const gates = StubGates.compile(stubs)!;
  const gated = await gates.forRequest({}, 'a', store);
  await gated.served(1);
  assert.equal(eligibility(await gates.forRequest({}, 'a', store)), ['ok', 'ok', 'skippedScenarioState', 'ok']);
});

test('spaceStub: bare stub, space from the flow id, default responses', () => {
  assert.equal(spaceStub({}, 'f'), { space: 'f', responses: [{ is: {} }] });
  assert.equal(spaceStub({ predicates: [] }, 'f'), { predicates: [], space: 'f', responses: [{ is: {} }] });
  assert.equal(spaceStub({ responses: [{ is: { body: 'x' } }], space: 'g' }, 'f'), { responses: [{ is: { body: 'x' } }], space: 'f' });
  const message = (body: unknown): string => {
    try {
      spaceStub(body, 'f');
    } catch (err) {
      assert.ok(isSvcError(err));
      assert.is(err.status, 400);
      return err.entries[0]!.message;
    }
    throw new Error('expected a 400');
  };
  assert.match(message({ stub: {} }), /envelope/);
  assert.match(message({ nonsense: 1 }), /none of the stub fields/);
  assert.match(message(null), /JSON object/);
});

test("spaceInsertIndex: after the space's own stubs, else before the first shared stub", () => {
  const list = [{ space: 'a' }, { space: 'b' }, {}, { space: 'c' }, {}];
  assert.is(spaceInsertIndex(list, 'a'), 1);
  assert.is(spaceInsertIndex(list, 'c'), 4, 'a space declared later in the list keeps its order');
  assert.is(spaceInsertIndex(list, 'new'), 2);
  assert.is(spaceInsertIndex([], 'new'), 0);
  assert.is(spaceInsertIndex([{ space: 'a' }], 'new'), 1);
});

test('scenarioNamesFor: shared and own-space scenarios, first declaration first', () => {
  const list = [{ scenarioName: 'x', space: 'b' }, { scenarioName: 'y' }, { scenarioName: 'z', space: 'a' }, { scenarioName: 'y', space: 'a' }];
  assert.equal(scenarioNamesFor(list, 'a'), ['y', 'z']);
  assert.equal(scenarioNamesFor(list, 'b'), ['x', 'y']);
});

test('flowGateProblems', () => {
  assert.equal(flowGateProblems({ scenarioName: 's', requiredScenarioState: 'A', required_scenario_state: 'A' }), [], 'both spellings agreeing is fine');
  assert.is(flowGateProblems({ newScenarioState: 'B' }).length, 1);
  assert.is(flowGateProblems({ space: 4, scenarioName: [] }).length, 2);
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../../../engine/respond/faults/index.js';
import { inProcessForSuite } from '../../../support/in-process.js';
import { createImposter, pipelinedStatuses, stubAt, withSeed } from '../../../support/faults.js';

const test = suite('faults: probabilities drawn from a seedable source');
const svc = inProcessForSuite(test);

const KEEP_ALIVE = { Connection: 'keep-alive' };

/** 200 normally; 503 when the error fault fires. Both keep the connection open so requests pipeline. */
function errorStub(probability: number): Record<string, unknown> {
  return stubAt('/', {
    is: { statusCode: 200, headers: KEEP_ALIVE, body: 'ok' },
    _svc: { fault: { error: { probability, status: 503, headers: KEEP_ALIVE, body: 'fault' } } },
  });
}

async function run(seed: string, probability: number, count: number): Promise<number[]> {
  return withSeed(seed, async () => {
    const port = await createImposter(svc, 'http', [errorStub(probability)]);
    const statuses = await pipelinedStatuses(port, '/', count);
    await svc.admin('DELETE', `/imposters/${port}`);
    return statuses;
  });
}

test('with a fixed seed, which requests fault is exactly reproducible across runs', async () => {
  const first = await run('reproducible', 0.5, 500);
  const second = await run('reproducible', 0.5, 500);
  assert.equal(second, first);
  const faulted = first.filter((s) => s === 503).length;
  assert.ok(faulted > 0 && faulted < 500, `both outcomes occur (${faulted} faults)`);
});

test('the fault sequence is the seeded stream: request i faults when draw i < probability', async () => {
  const random = seededRandom('predicted');
  const expected = Array.from({ length: 300 }, () => (random() < 0.4 ? 503 : 200));
  assert.equal(await run('predicted', 0.4, 300), expected);
});

test('a different seed gives a different sequence', async () => {
  assert.not.equal(await run('one seed', 0.5, 200), await run('another seed', 0.5, 200));
});

test('probability 0.3 over 10,000 requests: the observed rate is within 0.27-0.33', async () => {
  const statuses = await run('rate', 0.3, 10_000);
  const rate = statuses.filter((s) => s === 503).length / statuses.length;
  assert.ok(rate >= 0.27 && rate <= 0.33, `observed rate ${rate}`);
  assert.ok(statuses.every((s) => s === 200 || s === 503));
});

test('probability 0 never fires and 1 always fires', async () => {
  assert.ok((await run('edges', 0, 200)).every((s) => s === 200));
  assert.ok((await run('edges', 1, 200)).every((s) => s === 503));
});

test('without SVC_FAULT_SEED the draws are not fixed (two imposters differ)', async () => {
  const previous = process.env.SVC_FAULT_SEED;
  delete process.env.SVC_FAULT_SEED;
  try {
    const a = await createImposter(svc, 'http', [errorStub(0.5)]);
    const b = await createImposter(svc, 'http', [errorStub(0.5)]);
    assert.not.equal(await pipelinedStatuses(a, '/', 200), await pipelinedStatuses(b, '/', 200));
  } finally {
    if (previous !== undefined) process.env.SVC_FAULT_SEED = previous;
  }
});

test('seededRandom: same seed, same stream; values in [0, 1)', () => {
  const a = seededRandom('42');
  const b = seededRandom('42');
  for (let i = 0; i < 1000; i += 1) {
    const value = a();
    assert.is(value, b());
    assert.ok(value >= 0 && value < 1);
  }
});

test.run();

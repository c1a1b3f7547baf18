import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../../../engine/log/index.js';
import { ImposterManager, type EngineObserver } from '../../../../engine/manager/index.js';
import { clientRequest, pipelinedStatuses, rawExchange, stubAt } from '../../../support/faults.js';

const test = suite('faults: metrics hooks (faults injected, latency injected, error status)');
let manager: ImposterManager;
let events: string[];
let latencies: Array<[string, number]>;

const observer: EngineObserver = {
  onFault: (type, ruleId, source) => events.push(`fault ${type} ${ruleId} ${source}`),
  onLatencyInjected: (ruleId, ms) => latencies.push([ruleId, ms]),
  onErrorStatus: (status, ruleId) => events.push(`status ${status} ${ruleId}`),
};

test.before(() => {
  manager = new ImposterManager({ allowInjection: false, log: createLogger({ level: 'error', quiet: true }) });
  manager.observe(observer);
});
test.before.each(() => {
  events = [];
  latencies = [];
});
test.after.each(async () => {
  await manager.deleteAll({ baseUrl: '' });
});
test.after(async () => {
  await manager.close();
});

const OK = { is: { body: 'fine' } };

/** Stubs without generated ids, so the rule id falls back to `<port>:<stubIndex>`. */
async function imposter(stubs: unknown[]): Promise<number> {
  const created = await manager.createImposter({ protocol: 'http', stubs }, { generateIds: false });
  return created.port;
}

test('latency and error faults report type, rule id (stub id), source, latency ms and status', async () => {
  const port = await imposter([{ id: 'flaky', ...stubAt('/', { ...OK, _svc: { fault: { latency: { ms: 15 }, error: { status: 503 } } } }) }]);
  assert.is((await clientRequest('http', port, '/')).status, 503);
  assert.equal(events, ['fault latency flaky _svc.fault', 'fault error flaky _svc.fault', 'status 503 flaky']);
  assert.equal(latencies, [['flaky', 15]]);
});

test('tcp faults: rule id <port>:<stubIndex> without a stub id; source fault for the top-level response', async () => {
  const port = await imposter([stubAt('/ok', OK), stubAt('/svc', { ...OK, _svc: { fault: { tcp: 'reset' } } }), stubAt('/top', { fault: 'EMPTY_RESPONSE' })]);
  assert.is((await rawExchange('http', port, '/svc')).errorCode, 'ECONNRESET');
  await rawExchange('http', port, '/top');
  assert.is((await clientRequest('http', port, '/ok')).status, 200);
  assert.equal(events, [`fault tcp ${port}:1 _svc.fault`, `fault tcp ${port}:2 fault`]);
});

test('unknown fault names and faults that do not fire are not counted', async () => {
  const port = await imposter([
    stubAt('/unknown', { ...OK, _svc: { fault: { tcp: 'NOPE' } } }),
    stubAt('/top-unknown', { fault: 'NOPE' }),
    stubAt('/never', { ...OK, _svc: { fault: { latency: { probability: 0, ms: 10 }, tcp: { probability: 0, type: 'reset' }, error: { probability: 0 } } } }),
  ]);
  assert.is((await clientRequest('http', port, '/unknown')).status, 500);
  assert.is((await clientRequest('http', port, '/top-unknown')).status, 500);
  assert.is((await clientRequest('http', port, '/never')).status, 200);
  assert.equal(events, []);
  assert.equal(latencies, []);
});

test('injected latency stays within [minMs, maxMs] and counts each delayed request', async () => {
  const keepAlive = { Connection: 'keep-alive' };
  const port = await imposter([stubAt('/', { is: { headers: keepAlive, body: 'x' }, _svc: { fault: { latency: { probability: 0.5, minMs: 2, maxMs: 6 } } } })]);
  const statuses = await pipelinedStatuses(port, '/', 60);
  assert.ok(statuses.every((s) => s === 200));
  assert.ok(latencies.length > 0 && latencies.length < 60, `${latencies.length} delayed`);
  assert.is(events.length, latencies.length);
  for (const [ruleId, ms] of latencies) {
    assert.is(ruleId, `${port}:0`);
    assert.ok(ms >= 2 && ms <= 6, `drawn ${ms}`);
  }
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startMetricsServer, type RunningMetrics } from '../../../../admin/index.js';
import { inProcessForSuite } from '../../../support/in-process.js';
import { http } from '../../../support/servers.js';
import { parseExposition, type Family } from '../../../support/prom-text.js';
import { clientRequest, createImposter, rawExchange, stubAt } from '../../../support/faults.js';

const test = suite('faults: counted on the metrics server');
const svc = inProcessForSuite(test, { keepImposters: true });
let metrics: RunningMetrics;

test.before(async () => {
  metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', manager: svc.manager, admin: svc.server });
});
test.after(async () => {
  await metrics.close();
});

async function scrape(): Promise<Map<string, Family>> {
  const res = await http('GET', `http://127.0.0.1:${metrics.port}/metrics`);
  return parseExposition(res.body);
}

function sample(families: Map<string, Family>, name: string, labels: Record<string, string>, suffix = ''): number | undefined {
  return families
    .get(name)
    ?.samples.find(
      (s) =>
        s.name === name + suffix && Object.keys(s.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    )?.value;
}

test('latency, error and tcp faults appear in svc_faults_injected_total, svc_latency_injected_ms, svc_error_status_total', async () => {
  const port = await createImposter(svc, 'http', [
    { id: 'slow-error', ...stubAt('/error', { is: {}, _svc: { fault: { latency: { ms: 20 }, error: { status: 503 } } } }) },
    { id: 'reset', ...stubAt('/reset', { is: {}, _svc: { fault: { tcp: 'reset' } } }) },
    { id: 'top', ...stubAt('/top', { fault: 'CONNECTION_RESET_BY_PEER' }) },
  ]);
  for (let i = 0; i < 2; i += 1) assert.is((await clientRequest('http', port, '/error')).status, 503);
  assert.is((await rawExchange('http', port, '/reset')).errorCode, 'ECONNRESET');
  assert.is((await rawExchange('http', port, '/top')).errorCode, 'ECONNRESET');
  const families = await scrape();
  assert.is(sample(families, 'svc_faults_injected_total', { type: 'latency', rule_id: 'slow-error', source: '_svc.fault' }), 2);
  assert.is(sample(families, 'svc_faults_injected_total', { type: 'error', rule_id: 'slow-error', source: '_svc.fault' }), 2);
  assert.is(sample(families, 'svc_faults_injected_total', { type: 'tcp', rule_id: 'reset', source: '_svc.fault' }), 1);
  assert.is(sample(families, 'svc_faults_injected_total', { type: 'tcp', rule_id: 'top', source: 'fault' }), 1);
  assert.is(sample(families, 'svc_latency_injected_ms', { rule_id: 'slow-error' }, '_count'), 2);
  assert.is(sample(families, 'svc_latency_injected_ms', { rule_id: 'slow-error' }, '_sum'), 40);
  assert.is(sample(families, 'svc_error_status_total', { status: '503', rule_id: 'slow-error' }), 2);
});

test.run();

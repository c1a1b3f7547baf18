/**
 * prom-client loads on the first scrape, not when the metrics port opens (start-up cost), and what
 * happened before that scrape is still on it, in order, however much of it there was.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SvcMetrics } from '../../../admin/index.js';
import { parseExposition, type Family } from '../../support/prom-text.js';
import { repoRoot } from '../../support/servers.js';

const run = promisify(execFile);
const test = suite('metrics: prom-client deferred to the first scrape');

function sample(families: Map<string, Family>, name: string, labels: Record<string, string>, suffix = ''): number | undefined {
  return families.get(name)?.samples.find((s) => s.name === name + suffix && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

test('a fresh process loads prom-client on the first scrape, not when SvcMetrics is built or fed', async () => {
  // Its own process: other suites in this one have loaded prom-client already.
  const probe = `
    import { createRequire } from 'node:module';
    const { SvcMetrics } = await import(${JSON.stringify(join(repoRoot, 'admin/index.ts'))});
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/prom-client/'));
    const metrics = new SvcMetrics();
    metrics.onFault('latency', 'r1', 'stub');
    metrics.onConnection(4545, 0);
    const before = loaded();
    const text = await metrics.exposition();
    console.log(JSON.stringify({ before, after: loaded(), faulted: text.includes('svc_faults_injected_total{type="latency",rule_id="r1",source="stub"} 1') }));`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], { cwd: repoRoot });
  assert.equal(JSON.parse(stdout.trim().split('\n').pop()!), { before: false, after: true, faulted: true });
});

test('updates held before the first scrape are all counted, past the hold limit too, gauges at their last value', async () => {
  const metrics = new SvcMetrics();
  for (let i = 0; i < 25_000; i += 1) metrics.onFault('error', 'r2', 'stub');
  for (let i = 0; i < 3; i += 1) metrics.onLatencyInjected('r3', 7);
  metrics.onActiveFlows('memory', 5);
  metrics.onActiveFlows('memory', -2);
  metrics.onAcceptError(4546, Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' }));
  metrics.onConnection(4546, 0);
  metrics.onRequest(4546, 'GET', 200);
  const families = parseExposition(await metrics.exposition());
  assert.is(sample(families, 'svc_faults_injected_total', { type: 'error', rule_id: 'r2', source: 'stub' }), 25_000);
  assert.is(sample(families, 'svc_latency_injected_ms', { rule_id: 'r3' }, '_count'), 3);
  assert.is(sample(families, 'svc_latency_injected_ms', { rule_id: 'r3' }, '_sum'), 21);
  assert.is(sample(families, 'svc_active_flows', { backend: 'memory' }), 3);
  assert.is(sample(families, 'svc_accept_errors_total', { listener: 'imposter', class: 'systemic' }), 1);
  assert.is(sample(families, 'svc_accept_error_outage', { listener: 'imposter' }), 0);
  assert.is(sample(families, 'svc_accepted_connections_total', { worker: '0' }), 1);
  assert.is(sample(families, 'svc_requests_total', { method: 'GET', status: '200' }), 1);
  metrics.onFault('error', 'r2', 'stub');
  assert.is(sample(parseExposition(await metrics.exposition()), 'svc_faults_injected_total', { type: 'error', rule_id: 'r2', source: 'stub' }), 25_001);
});

test.run();

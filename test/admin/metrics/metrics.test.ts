import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startMetricsServer, type RunningMetrics } from '../../../admin/index.js';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { freePort, http, startSvc } from '../../support/servers.js';
import { labelSets, parseExposition, type Family } from '../../support/prom-text.js';
import { startUpstream } from '../../support/upstream.js';

/** docs/metrics-and-events.md: every metric, its type and its label names. */
const SPEC: Record<string, { type: Family['type']; labels: string[] }> = {
  svc_requests_total: { type: 'counter', labels: ['method', 'status'] },
  svc_faults_injected_total: { type: 'counter', labels: ['type', 'rule_id', 'source'] },
  svc_latency_injected_ms: { type: 'histogram', labels: ['rule_id'] },
  svc_error_status_total: { type: 'counter', labels: ['status', 'rule_id'] },
  svc_script_execution_duration_ms: { type: 'histogram', labels: ['rule_id', 'result'] },
  svc_script_errors_total: { type: 'counter', labels: ['rule_id', 'error_type'] },
  svc_flow_state_ops_total: { type: 'counter', labels: ['operation', 'result'] },
  svc_active_flows: { type: 'gauge', labels: ['backend'] },
  svc_proxy_request_duration_ms: { type: 'histogram', labels: ['method', 'fault_applied'] },
  svc_upstream_request_duration_ms: { type: 'histogram', labels: ['method', 'status'] },
  svc_accepted_connections_total: { type: 'counter', labels: ['worker'] },
  svc_accept_errors_total: { type: 'counter', labels: ['listener', 'class'] },
  svc_accept_error_outage: { type: 'gauge', labels: ['listener'] },
};

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`accept ${code}`), { code, syscall: 'accept' });
}

function value(families: Map<string, Family>, name: string, labels: Record<string, string>, suffix = ''): number | undefined {
  const sample = families
    .get(name)
    ?.samples.find(
      (s) =>
        s.name === name + suffix && Object.keys(labels).length === Object.keys(s.labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
  return sample?.value;
}

/** Accepted connections over every engine thread (one `worker` label each under --runtime per-core). */
function accepted(families: Map<string, Family>): number {
  return (families.get('svc_accepted_connections_total')?.samples ?? []).reduce((sum, sample) => sum + sample.value, 0);
}

const test = suite('metrics server (docs/metrics-and-events.md)');
const svc = inProcessForSuite(test);
let running: RunningMetrics;
let port: number;

async function scrape(): Promise<Map<string, Family>> {
  const res = await http('GET', `http://127.0.0.1:${running.port}/metrics`);
  assert.is(res.status, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parseExposition(res.body);
}

test.before(async () => {
  running = await startMetricsServer({ port: 0, host: '127.0.0.1', manager: svc.manager, admin: svc.server });
});
test.after(async () => {
  await running.close();
});
test.before.each(async () => {
  port = await freePort();
  const res = await svc.admin('POST', '/imposters', {
    port,
    protocol: 'http',
    stubs: [{ predicates: [{ equals: { path: '/ok' } }], responses: [{ is: { statusCode: 201 } }] }],
  });
  assert.is(res.status, 201);
});

test('a fresh page holds only SPEC metrics, accept-error series at 0 for every running listener', async () => {
  const families = await scrape();
  assert.equal([...families.keys()].sort(), Object.keys(SPEC).sort(), 'no metric outside docs/metrics-and-events.md (no default Node metrics)');
  for (const [name, spec] of Object.entries(SPEC)) assert.is(families.get(name)!.type, spec.type, name);
  for (const listener of ['imposter', 'admin', 'metrics']) {
    assert.is(value(families, 'svc_accept_errors_total', { listener, class: 'transient' }), 0, listener);
    assert.is(value(families, 'svc_accept_errors_total', { listener, class: 'systemic' }), 0, listener);
    assert.is(value(families, 'svc_accept_error_outage', { listener }), 0, listener);
  }
});

test('imposter traffic counts requests by method/status and accepted connections', async () => {
  const before = await scrape();
  const accepted0 = accepted(before);
  const get0 = value(before, 'svc_requests_total', { method: 'GET', status: '201' }) ?? 0;
  const miss0 = value(before, 'svc_requests_total', { method: 'POST', status: '200' }) ?? 0;
  for (let i = 0; i < 3; i += 1) assert.is((await call(port, 'GET', '/ok')).status, 201);
  assert.is((await call(port, 'POST', '/nothing', { body: 'x' })).status, 200);
  const after = await scrape();
  assert.is(value(after, 'svc_requests_total', { method: 'GET', status: '201' }), get0 + 3);
  assert.is(value(after, 'svc_requests_total', { method: 'POST', status: '200' }), miss0 + 1);
  assert.is(accepted(after), accepted0 + 4, 'one connection per call');
});

test('answers from a failing predicate are counted too', async () => {
  const broken = await freePort();
  await svc.admin('POST', '/imposters', {
    port: broken,
    protocol: 'http',
    // contains on a JSON number throws while matching (mountebank answers 500).
    stubs: [{ predicates: [{ contains: { body: { n: '1' } } }], responses: [{ is: {} }] }],
  });
  const before = value(await scrape(), 'svc_requests_total', { method: 'PUT', status: '500' }) ?? 0;
  const res = await call(broken, 'PUT', '/', { body: '{"n":1}', headers: { 'Content-Type': 'application/json' } });
  assert.is(res.status, 500);
  assert.is(value(await scrape(), 'svc_requests_total', { method: 'PUT', status: '500' }), before + 1);
});

test('every SPEC metric carries exactly its label set once producers report', async () => {
  await call(port, 'GET', '/ok');
  const m = running.metrics;
  // Producers that other parts of the engine call (faults, scripts, flow state, proxy).
  m.onFault('latency', 'stub-0', '_svc.fault');
  m.onLatencyInjected('stub-0', 120);
  m.onErrorStatus(503, 'orders');
  m.onScript('orders', 'ok', 3.5);
  m.onScriptError('orders', 'runtime');
  m.onFlowStateOp('incr', 'ok');
  m.onActiveFlows('inmemory', 2);
  m.onActiveFlows('inmemory', -1);
  m.onProxy('GET', false, 12);
  m.onUpstream('GET', 200, 10);
  const families = await scrape();
  assert.equal([...families.keys()].sort(), Object.keys(SPEC).sort());
  for (const [name, spec] of Object.entries(SPEC)) {
    const family = families.get(name)!;
    const sampleName = spec.type === 'histogram' ? `${name}_count` : name;
    const sets = labelSets(family, sampleName);
    assert.ok(sets.length > 0, `${name} has samples`);
    for (const set of sets) assert.equal(set, [...spec.labels].sort(), `${name} labels`);
    if (spec.type === 'histogram') {
      for (const set of labelSets(family, `${name}_bucket`)) assert.equal(set, [...spec.labels, 'le'].sort(), `${name}_bucket labels`);
    }
  }
  assert.is(value(families, 'svc_active_flows', { backend: 'inmemory' }), 1);
  assert.is(value(families, 'svc_latency_injected_ms', { rule_id: 'stub-0' }, '_sum'), 120);
  assert.is(value(families, 'svc_error_status_total', { status: '503', rule_id: 'orders' }), 1);
});

test('proxied requests: fault_applied is "true" when any fault of the stub fired (latency included), else "false"', async () => {
  const origin = await startUpstream('http', (_req, res) => res.end('origin'));
  try {
    const proxy = { proxy: { to: origin.origin, mode: 'proxyTransparent' } };
    const proxying = await svc.createImposter({
      stubs: [
        { predicates: [{ equals: { path: '/slow' } }], responses: [{ ...proxy, _svc: { fault: { latency: { ms: 5 } } } }] },
        { predicates: [{ equals: { path: '/broken' } }], responses: [{ ...proxy, _svc: { fault: { error: { status: 503 } } } }] },
        { predicates: [{ equals: { path: '/never' } }], responses: [{ ...proxy, _svc: { fault: { latency: { ms: 5, probability: 0 } } } }] },
        { responses: [proxy] },
      ],
    });
    const before = await scrape();
    const count = (families: Map<string, Family>, faultApplied: string) =>
      value(families, 'svc_proxy_request_duration_ms', { method: 'PATCH', fault_applied: faultApplied }, '_count') ?? 0;
    assert.is((await call(proxying, 'PATCH', '/slow')).body, 'origin');
    assert.is((await call(proxying, 'PATCH', '/broken')).status, 503);
    assert.is((await call(proxying, 'PATCH', '/never')).body, 'origin');
    assert.is((await call(proxying, 'PATCH', '/plain')).body, 'origin');
    const after = await scrape();
    assert.is(count(after, 'true') - count(before, 'true'), 2, 'latency and error faults fired');
    assert.is(count(after, 'false') - count(before, 'false'), 2, 'a fault that did not fire, and no fault block');
  } finally {
    await origin.stop();
  }
});

test('accept errors: admin classes, fatal excluded, outage while wedged and released on the next accept', async () => {
  const before = await scrape();
  const transient0 = value(before, 'svc_accept_errors_total', { listener: 'admin', class: 'transient' })!;
  const systemic0 = value(before, 'svc_accept_errors_total', { listener: 'admin', class: 'systemic' })!;
  // Node reports a failed accept() as the server's 'error' event: exactly what is emitted here.
  svc.server.emit('error', errno('ECONNABORTED'));
  svc.server.emit('error', errno('EMFILE'));
  svc.server.emit('error', errno('EBADF'));
  const wedged = await scrape();
  assert.is(value(wedged, 'svc_accept_errors_total', { listener: 'admin', class: 'transient' }), transient0 + 1);
  assert.is(value(wedged, 'svc_accept_errors_total', { listener: 'admin', class: 'systemic' }), systemic0 + 1, 'EBADF (fatal) not counted on admin');
  assert.is(value(wedged, 'svc_accept_error_outage', { listener: 'admin' }), 1);
  await svc.admin('GET', '/');
  const released = await scrape();
  assert.is(value(released, 'svc_accept_error_outage', { listener: 'admin' }), 0, 'a successful accept ends the outage');
});

test('imposter loops count broken fds as systemic; the outage ends when the wedged loop ends', async () => {
  const second = await freePort();
  await svc.admin('POST', '/imposters', { port: second, protocol: 'http' });
  const before = await scrape();
  const systemic0 = value(before, 'svc_accept_errors_total', { listener: 'imposter', class: 'systemic' })!;
  running.metrics.onAcceptError(port, errno('EBADF'));
  running.metrics.onAcceptError(second, errno('EMFILE'));
  const wedged = await scrape();
  assert.is(value(wedged, 'svc_accept_errors_total', { listener: 'imposter', class: 'systemic' }), systemic0 + 2);
  assert.is(value(wedged, 'svc_accept_error_outage', { listener: 'imposter' }), 1);
  await svc.admin('DELETE', `/imposters/${port}`);
  assert.is(value(await scrape(), 'svc_accept_error_outage', { listener: 'imposter' }), 1, 'another loop is still wedged');
  await svc.admin('DELETE', `/imposters/${second}`);
  assert.is(value(await scrape(), 'svc_accept_error_outage', { listener: 'imposter' }), 0, 'released when the last wedged loop ended');
});

test('metrics server answers 404 elsewhere', async () => {
  assert.is((await http('GET', `http://127.0.0.1:${running.port}/`)).status, 404);
  assert.is((await http('POST', `http://127.0.0.1:${running.port}/metrics`)).status, 404);
});

test('admin GET /metrics keeps its two metrics and content type', async () => {
  await call(port, 'GET', '/ok');
  await call(port, 'GET', '/ok');
  const res = await svc.admin('GET', '/metrics');
  assert.is(res.status, 200);
  assert.is(res.headers['content-type'], 'text/plain; version=0.0.4');
  const families = parseExposition(res.body);
  assert.equal([...families.keys()].sort(), ['svc_imposter_requests_total', 'svc_imposters_total']);
  assert.is(value(families, 'svc_imposters_total', {}), 1);
  assert.is(value(families, 'svc_imposter_requests_total', { port: String(port) }), 2);
});

test('svc start serves the metrics plane on SVC_METRICS_PORT', async () => {
  const metricsPort = await freePort();
  const server = await startSvc({ env: { SVC_METRICS_PORT: String(metricsPort) } });
  try {
    const res = await http('GET', `http://127.0.0.1:${metricsPort}/metrics`);
    assert.is(res.status, 200);
    const families = parseExposition(res.body);
    assert.equal([...families.keys()].sort(), Object.keys(SPEC).sort());
  } finally {
    await server.stop();
  }
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startMetricsServer, type RunningMetrics } from '../../../admin/index.js';
import { SvcScriptRunner } from '../../../engine/script/svc/index.js';
import { createJsScriptHost } from '../../../engine/script/js/index.js';
import { createLogger } from '../../../engine/log/index.js';
import { MemoryFlowStore, type FlowStore } from '../../../engine/state/index.js';
import { inProcessForSuite, call } from '../../support/in-process.js';
import { http } from '../../support/servers.js';
import { parseExposition, type Family } from '../../support/prom-text.js';

const svc = inProcessForSuite(test, { allowInjection: true, keepImposters: true });
let metrics: RunningMetrics;
let runner: SvcScriptRunner;
const logged: string[] = [];
test.before(async () => {
  metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', manager: svc.manager, admin: svc.server });
  runner = new SvcScriptRunner({ log: (level, message) => logged.push(`${level} ${message}`), workers: 1 });
});
test.after(async () => {
  await runner.close();
  await metrics.close();
});

function sample(families: Map<string, Family>, name: string, labels: Record<string, string>): number | undefined {
  return families.get(name.replace(/_(count|sum)$/, ''))?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    ?.value;
}

test('script runs feed svc_script_execution_duration_ms{rule_id,result} and svc_script_errors_total{rule_id,error_type}', async () => {
  const port = await svc.createImposter({
    stubs: [
      { id: 'ok-rule', predicates: [{ equals: { path: '/ok' } }], responses: [{ _svc: { script: { code: 'http(200)' } } }] },
      { id: 'bad-rule', predicates: [{ equals: { path: '/bad' } }], responses: [{ _svc: { script: { code: 'throw "x"' } } }] },
    ],
  });
  assert.is((await call(port, 'GET', '/ok')).status, 200);
  assert.is((await call(port, 'GET', '/ok')).status, 200);
  assert.is((await call(port, 'GET', '/bad')).status, 500);
  const families = parseExposition((await http('GET', `http://127.0.0.1:${metrics.port}/metrics`)).body);
  assert.is(sample(families, 'svc_script_execution_duration_ms_count', { rule_id: 'ok-rule', result: 'ok' }), 2);
  assert.is(sample(families, 'svc_script_execution_duration_ms_count', { rule_id: 'bad-rule', result: 'error' }), 1);
  assert.is(sample(families, 'svc_script_errors_total', { rule_id: 'bad-rule', error_type: 'runtime' }), 1);
});

const request = { method: 'GET', path: '/', query: {}, pathParams: {}, headers: {}, body: '' };

test('a flow-store failure inside a script is a logged script error (error_type backend), never a silent default', async () => {
  const failing = new MemoryFlowStore({ ttlSeconds: 300 }) as FlowStore;
  const broken: FlowStore = Object.assign(Object.create(failing) as FlowStore, { get: () => Promise.reject(new Error('backend down')) });
  const outcome = await runner.run({
    engine: 'rhai',
    scope: 1,
    source: 'let v = ctx.state.get("k"); http(200, `${v}`)',
    placement: 'respond',
    request,
    flowId: 'f',
    stub: {},
    timeoutMs: 60_000,
    store: broken,
  });
  assert.equal(outcome.ok, false);
  if (!outcome.ok) {
    assert.is(outcome.errorType, 'backend');
    assert.match(outcome.message, /backend down/);
  }
  assert.ok(
    logged.some((line) => line === 'error flow state get failed: backend down'),
    logged.join('\n'),
  );
});

test('a flow-store failure inside a javascript script has the same error_type (backend) as in rhai', async () => {
  const log = createLogger({ level: 'error', quiet: true });
  const javascript = createJsScriptHost({ log, workers: 1 });
  const jsRunner = new SvcScriptRunner({ log: () => undefined, workers: 1, javascript: () => javascript });
  try {
    const failing = new MemoryFlowStore({ ttlSeconds: 300 }) as FlowStore;
    const broken: FlowStore = Object.assign(Object.create(failing) as FlowStore, { get: () => Promise.reject(new Error('backend down')) });
    const outcome = await jsRunner.run({
      engine: 'javascript',
      scope: 1,
      source: 'return http(200, String(ctx.state.get("k")));',
      placement: 'respond',
      request,
      flowId: 'f',
      stub: {},
      timeoutMs: 30_000,
      store: broken,
    });
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.is(outcome.errorType, 'backend');
      assert.match(outcome.message, /backend down/);
    }
    // A script's own error stays a runtime error.
    const own = await jsRunner.run({
      engine: 'javascript',
      scope: 1,
      source: 'throw new Error("mine");',
      placement: 'respond',
      request,
      flowId: 'f',
      stub: {},
      timeoutMs: 30_000,
      store: broken,
    });
    assert.is(own.ok ? undefined : own.errorType, 'runtime');
  } finally {
    await jsRunner.close();
    await javascript.close();
  }
});

test('ctx.state calls of one run see each other and reach the store synchronously', async () => {
  const store = new MemoryFlowStore({ ttlSeconds: 300 });
  const source = 'let a = ctx.state.incr("n"); let b = ctx.state.incr("n"); http(200, `${a},${b}`)';
  const outcome = await runner.run({ engine: 'rhai', scope: 1, source, placement: 'respond', request, flowId: 'f', stub: {}, timeoutMs: 60_000, store });
  assert.equal(outcome, { ok: true, result: { kind: 'http', status: 200, headers: [], body: '1,2' } });
  assert.is(await store.get('f', 'n'), 2);
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startInProcess, call, type InProcessSvc } from '../helpers/in-process.js';

// What a per-core fast path asks before answering an imposter's requests without the main thread.
const test = suite('imposter: answersStatically');
let svc: InProcessSvc;

test.before(async () => {
  svc = await startInProcess({ allowInjection: true });
});
test.after(async () => {
  await svc.stop();
});
test.after.each(async () => {
  await svc.admin('DELETE', '/imposters');
});

const is = { is: { statusCode: 200, body: 'hello' } };

async function answersStatically(config: Record<string, unknown>): Promise<boolean> {
  const port = await svc.createImposter(config);
  return svc.manager.get(port)!.answersStatically();
}

test('static is responses with plain predicates (and no stubs at all) answer statically', async () => {
  assert.ok(await answersStatically({}));
  assert.ok(
    await answersStatically({ stubs: [{ predicates: [{ equals: { path: '/a' } }], responses: [is, { is: { statusCode: 404 } }] }, { responses: [is] }] }),
  );
});

test('anything needing the main thread does not', async () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['recordRequests', { recordRequests: true, stubs: [{ responses: [is] }] }],
    ['allowCORS', { allowCORS: true, stubs: [{ responses: [is] }] }],
    ['behaviors', { stubs: [{ responses: [{ ...is, behaviors: [{ wait: 1 }] }] }] }],
    ['fault', { stubs: [{ responses: [{ fault: 'CONNECTION_RESET_BY_PEER' }] }] }],
    ['inject response', { stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] }],
    ['inject predicate', { stubs: [{ predicates: [{ or: [{ inject: 'function () { return true; }' }] }], responses: [is] }] }],
    ['stateOps', { stubs: [{ responses: [{ ...is, _svc: { stateOps: [{ op: 'increment', key: 'hits' }] } }] }] }],
    ['scenario', { stubs: [{ scenarioName: 's', requiredScenarioState: 'Started', newScenarioState: 'Next', responses: [is] }] }],
  ];
  for (const [name, config] of cases) assert.not.ok(await answersStatically(config), name);
});

test('follows the imposter: a dynamic stub added later, and disabling, turn it off', async () => {
  const port = await svc.createImposter({ stubs: [{ responses: [is] }] });
  const imposter = svc.manager.get(port)!;
  assert.ok(imposter.answersStatically());
  const res = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { responses: [{ inject: 'function () { return {}; }' }] } });
  assert.is(res.status, 200, JSON.stringify(res.json));
  assert.not.ok(imposter.answersStatically());
  await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [{ responses: [is] }] });
  assert.ok(imposter.answersStatically());
  await svc.manager.setEnabled(port, { enabled: false });
  assert.not.ok(imposter.answersStatically());
  assert.is((await call(port, 'GET', '/')).status, 200, 'a disabled imposter answers its default response');
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { servesAnywhere } from '../../../engine/serve/index.js';
import { inProcessForSuite, call } from '../../support/in-process.js';

// What the per-core runtime asks before engine threads serve an imposter's requests themselves.
const test = suite('imposter: servesAnywhere');
const svc = inProcessForSuite(test, { allowInjection: true });

const is = { is: { statusCode: 200, body: 'hello' } };

async function anywhere(config: Record<string, unknown>): Promise<boolean> {
  const port = await svc.createImposter(config);
  return servesAnywhere(svc.manager.get(port)!);
}

test('what needs only the config serves anywhere: static, recorded, CORS, behaviors without scripts, faults', async () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['no stubs', {}],
    ['static', { stubs: [{ predicates: [{ equals: { path: '/a' } }], responses: [is, { is: { statusCode: 404 } }] }, { responses: [is] }] }],
    ['recordRequests', { recordRequests: true, stubs: [{ responses: [is] }] }],
    ['allowCORS', { allowCORS: true, stubs: [{ responses: [is] }] }],
    [
      'wait, copy, lookup',
      { stubs: [{ responses: [{ ...is, _behaviors: { wait: 1, copy: [{ from: 'path', into: '${p}', using: { method: 'regex', selector: '.*' } }] } }] }] },
    ],
    ['wait range', { stubs: [{ responses: [{ ...is, _behaviors: { wait: { min: 1, max: 2 } } }] }] }],
    ['fault', { stubs: [{ responses: [{ fault: 'CONNECTION_RESET_BY_PEER' }] }] }],
    ['_svc.fault', { stubs: [{ responses: [{ ...is, _svc: { fault: { latency: { ms: 1 } } } }] }] }],
  ];
  for (const [name, config] of cases) assert.ok(await anywhere(config), name);
});

test('anything needing the main thread does not', async () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['shellTransform', { stubs: [{ responses: [{ ...is, _behaviors: { shellTransform: 'cat' } }] }] }],
    ['proxy decorate', { stubs: [{ responses: [{ proxy: { to: 'http://127.0.0.1:1' }, _behaviors: { decorate: 'function (req, res) {}' } }] }] }],
    ['proxy addDecorateBehavior', { stubs: [{ responses: [{ proxy: { to: 'http://127.0.0.1:1', addDecorateBehavior: 'function (req, res) {}' } }] }] }],
    [
      'proxy inject generator',
      { stubs: [{ responses: [{ proxy: { to: 'http://127.0.0.1:1', predicateGenerators: [{ inject: 'function (config) { return []; }' }] } }] }] },
    ],
  ];
  for (const [name, config] of cases) assert.not.ok(await anywhere(config), name);
});

test('proxies serve anywhere: engine threads forward themselves and the owner applies their recordings', async () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['proxyTransparent', { stubs: [{ responses: [{ proxy: { to: 'http://127.0.0.1:1', mode: 'proxyTransparent' } }] }] }],
    ['proxyOnce', { stubs: [{ responses: [{ proxy: { to: 'http://127.0.0.1:1', predicateGenerators: [{ matches: { path: true } }] } }] }] }],
    ['proxyAlways with a wait', { stubs: [{ responses: [{ proxy: { to: 'https://127.0.0.1:1', mode: 'proxyAlways' }, _behaviors: { wait: 1 } }] }] }],
  ];
  for (const [name, config] of cases) assert.ok(await anywhere(config), name);
});

test('scripts serve anywhere: engine threads reach the script workers on their own links', async () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['function wait', { stubs: [{ responses: [{ ...is, _behaviors: { wait: 'function () { return 1; }' } }] }] }],
    ['decorate', { stubs: [{ responses: [{ ...is, _behaviors: { decorate: 'function (req, res) {}' } }] }] }],
    ['inject response', { stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] }],
    ['inject predicate', { stubs: [{ predicates: [{ or: [{ inject: 'function () { return true; }' }] }], responses: [is] }] }],
  ];
  for (const [name, config] of cases) assert.ok(await anywhere(config), name);
});

test('gates and stateOps serve anywhere: every thread reaches the flow store', async () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['stateOps', { stubs: [{ responses: [{ ...is, _svc: { stateOps: [{ op: 'increment', key: 'hits' }] } }] }] }],
    ['scenario', { stubs: [{ scenarioName: 's', requiredScenarioState: 'Started', newScenarioState: 'Next', responses: [is] }] }],
    ['space', { stubs: [{ space: 'tenant-a', responses: [is] }] }],
  ];
  for (const [name, config] of cases) assert.ok(await anywhere(config), name);
});

test('follows the imposter: a shellTransform stub added later turns it off, replacing it turns it on', async () => {
  const port = await svc.createImposter({ stubs: [{ responses: [is] }] });
  const imposter = svc.manager.get(port)!;
  assert.ok(servesAnywhere(imposter));
  const res = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { responses: [{ ...is, _behaviors: { shellTransform: 'cat' } }] } });
  assert.is(res.status, 200, JSON.stringify(res.json));
  assert.not.ok(servesAnywhere(imposter));
  await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [{ responses: [is] }] });
  assert.ok(servesAnywhere(imposter));
  await svc.manager.setEnabled(port, { enabled: false });
  assert.ok(servesAnywhere(imposter), 'a disabled imposter answers its default response anywhere');
  assert.is((await call(port, 'GET', '/')).status, 200);
});

test.run();

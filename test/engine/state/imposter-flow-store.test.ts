import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';
import { createLogger } from '../../../engine/log/index.js';
import { ImposterManager } from '../../../engine/manager/index.js';

const test = suite('state: the store and flow id each imposter gets');
const svc = inProcessForSuite(test);

const is = { is: { body: 'x' } };

test('static stubs get the noop store; scenario stubs an implicit in-memory one; flowState its backend', async () => {
  const plain = await svc.createImposter({ stubs: [{ responses: [is] }] });
  assert.is(svc.manager.require(plain).flowStore.backend, 'noop');
  const scenario = await svc.createImposter({ stubs: [{ scenarioName: 'login', responses: [is] }] });
  assert.is(svc.manager.require(scenario).flowStore.backend, 'inmemory');
  const explicit = await svc.createImposter({ _svc: { flowState: { backend: 'inmemory', ttlSeconds: 5 } } });
  assert.is(svc.manager.require(explicit).flowStore.backend, 'inmemory');
});

test('a noop imposter that gains a scenario stub gets the implicit store', async () => {
  const port = await svc.createImposter({ stubs: [{ responses: [is] }] });
  const res = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { scenarioName: 'login', newScenarioState: 'x', responses: [is] } });
  assert.is(res.status, 200);
  assert.is(svc.manager.require(port).flowStore.backend, 'inmemory');
});

test('flowIdOf: the configured header (any case), falling back to the port', async () => {
  const port = await svc.createImposter({ _svc: { flowState: { flowIdSource: 'header:X-Flow-Id' } } });
  const imposter = svc.manager.require(port);
  assert.is(imposter.flowIdOf({ headers: { 'x-flow-id': 'abc' } }), 'abc');
  assert.is(imposter.flowIdOf({ headers: { 'X-FLOW-ID': ['one', 'two'] } }), 'one');
  assert.is(imposter.flowIdOf({ headers: {} }), String(port));
  const byPort = svc.manager.require(await svc.createImposter({}));
  assert.is(byPort.flowIdOf({ headers: { 'x-flow-id': 'abc' } }), String(byPort.port));
});

test('the implicit store is announced by a warning at target svc::script; the noop store by nothing', async () => {
  const log = createLogger({ level: 'warn', quiet: true });
  const manager = new ImposterManager({ allowInjection: false, log });
  try {
    await manager.createImposter({ port: await freePort(), stubs: [{ responses: [is] }] });
    assert.equal(
      log.recent().filter((e) => e.message.includes('flow store')),
      [],
    );
    const scenario = await manager.createImposter({ port: await freePort(), stubs: [{ scenarioName: 's', responses: [is] }] });
    const warnings = log.recent().filter((e) => e.level === 'warn' && e.message.startsWith('svc::script '));
    assert.is(warnings.length, 1);
    assert.match(warnings[0].message, new RegExp(`imposter ${scenario.port}: .*in-memory flow store \\(ttlSeconds 300\\)`));
  } finally {
    await manager.close();
  }
});

test.run();

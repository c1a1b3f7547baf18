import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';

const test = suite('state: _svc.flowState and _svc.stateOps validation (docs/flow-state.md rule 1, §2.3)');
const svc = inProcessForSuite(test);

const is = { is: { body: 'x' } };

/** POSTs the config and expects a 400 whose message matches, and no imposter on the port. */
async function rejected(config: Record<string, unknown>, message: RegExp): Promise<void> {
  const port = await freePort();
  const res = await svc.admin('POST', '/imposters', { port, protocol: 'http', ...config });
  assert.is(res.status, 400, JSON.stringify(res.json));
  assert.is(res.json.errors[0].code, 'bad data');
  assert.match(res.json.errors.map((e: { message: string }) => e.message).join('\n'), message);
  assert.is((await svc.admin('GET', `/imposters/${port}`)).status, 404, 'no imposter was created');
}

const flowState = (value: unknown) => ({ _svc: { flowState: value } });

test('unknown backend', async () => {
  await rejected(flowState({ backend: 'memcached' }), /unknown flow state backend 'memcached'/);
});

test('ttlSeconds below 1 or not an integer', async () => {
  await rejected(flowState({ ttlSeconds: 0 }), /ttlSeconds' must be an integer >= 1/);
  await rejected(flowState({ ttlSeconds: 1.5 }), /ttlSeconds' must be an integer >= 1/);
  await rejected(flowState({ ttlSeconds: '60' }), /ttlSeconds' must be an integer >= 1/);
});

test('flowIdSource other than imposter_port or header:<Name>', async () => {
  await rejected(flowState({ flowIdSource: 'cookie:id' }), /flowIdSource' must be 'imposter_port' or 'header:<Name>'/);
  await rejected(flowState({ flowIdSource: 'header:' }), /flowIdSource/);
  await rejected(flowState({ flowIdSource: 'header:bad name' }), /flowIdSource/);
});

test('redis without a usable url, or with a bad poolSize', async () => {
  await rejected(flowState({ backend: 'redis' }), /needs a 'url'/);
  await rejected(flowState({ backend: 'redis', url: 'http://127.0.0.1:6379' }), /needs a 'url'/);
  await rejected(flowState({ backend: 'redis', url: 'redis://127.0.0.1:6379', poolSize: 0 }), /poolSize/);
});

test('flowState must be an object', async () => {
  await rejected(flowState('inmemory'), /'_svc.flowState' must be an object/);
});

test('valid configs are accepted and read back as written', async () => {
  const port = await svc.createImposter(flowState({ backend: 'inmemory', ttlSeconds: 60, flowIdSource: 'header:X-Flow' }));
  const replayable = await svc.admin('GET', `/imposters/${port}?replayable=true`);
  assert.equal(replayable.json._svc.flowState, { backend: 'inmemory', ttlSeconds: 60, flowIdSource: 'header:X-Flow' });
});

test('stateOps: unknown op, missing key, set without value, bad by, not an array', async () => {
  const stub = (stateOps: unknown) => ({ stubs: [{ responses: [{ ...is, _svc: { stateOps } }] }] });
  await rejected(stub([{ op: 'incr', key: 'n' }]), /_svc.stateOps\[0\]'.*unknown op 'incr'/);
  await rejected(stub([{ op: 'set', key: 'a', value: 1 }, { op: 'delete' }]), /_svc.stateOps\[1\]'.*needs a string 'key'/);
  await rejected(stub([{ op: 'set', key: 'a' }]), /op 'set' needs a 'value'/);
  await rejected(stub([{ op: 'increment', key: 'a', by: 'two' }]), /'by' must be a number/);
  await rejected(stub({ op: 'set' }), /'_svc.stateOps' must be an array/);
});

test('stateOps are validated on stub edits too', async () => {
  const port = await svc.createImposter({});
  const res = await svc.admin('POST', `/imposters/${port}/stubs`, { stub: { responses: [{ ...is, _svc: { stateOps: [{ op: 'bump', key: 'n' }] } }] } });
  assert.is(res.status, 400);
  assert.match(res.json.errors[0].message, /unknown op 'bump'/);
});

test.run();

/**
 * Issue 10 item 2: deeply nested admin bodies are refused at parse time with a 400 naming the path,
 * and nothing a request does can end the process (the real CLI process, spawned).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminCaller, type AdminCall } from '../support/in-process.js';
import { freePort, startSvc, type RunningServer } from '../support/servers.js';

const test = suite('admin: deep nesting is a 400, never a crash');
let svc: RunningServer;
let admin: AdminCall;

test.before(async () => {
  const metricsPort = await freePort();
  svc = await startSvc({ args: ['--metrics-port', String(metricsPort), '--nologfile', '--pidfile', `/tmp/svc-hostile-bodies-${process.pid}.pid`] });
  admin = adminCaller(svc.adminPort);
});
test.after(async () => {
  await svc.stop();
});

function nestedObjects(levels: number, leaf = '1'): string {
  return '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);
}

function nestedArrays(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

async function assertAliveAndEmpty(): Promise<void> {
  const health = await admin('GET', '/health');
  assert.is(health.status, 200, 'the process still answers');
  const imposters = await admin('GET', '/imposters');
  assert.equal(imposters.json.imposters, [], 'no imposter was created');
}

test('4,500 nested objects under defaultResponse.statusCode: 400 with the path, process alive (was a crash)', async () => {
  const port = await freePort();
  const res = await admin('POST', '/imposters', `{"port":${port},"protocol":"http","defaultResponse":{"statusCode":${nestedObjects(4500)}}}`);
  assert.is(res.status, 400, res.body.slice(0, 300));
  const [error] = res.json.errors;
  assert.is(error.type, 'nesting_too_deep');
  assert.ok(error.path.startsWith('defaultResponse.statusCode.a.a.a'), error.path);
  assert.is(error.path.split('.').length, 100, 'the path names the first container past 100 levels');
  await assertAliveAndEmpty();
});

test('10,000 levels in any config field or route body: 400 each, the process alive throughout', async () => {
  const port = await freePort();
  const deep = nestedObjects(10_000);
  const bodies: Array<[string, string, string, string]> = [
    [
      'POST',
      '/imposters',
      `{"port":${port},"protocol":"http","stubs":[{"predicates":[{"equals":{"body":${deep}}}],"responses":[{"is":{}}]}]}`,
      'stubs[0].predicates[0].equals.body.a',
    ],
    ['POST', '/imposters', `{"port":${port},"protocol":"http","stubs":[{"responses":[{"is":{"headers":${deep}}}]}]}`, 'stubs[0].responses[0].is.headers.a'],
    ['POST', '/imposters', `{"port":${port},"protocol":"http","stubs":${nestedArrays(10_000)}}`, 'stubs[0][0][0]'],
    ['PUT', '/imposters', `{"imposters":[{"port":${port},"protocol":"http","odd key":${deep}}]}`, 'imposters[0]["odd key"].a'],
    ['POST', '/imposters', nestedArrays(10_000), '[0][0]'],
  ];
  for (const [method, path, body, prefix] of bodies) {
    const res = await admin(method, path, body);
    assert.is(res.status, 400, `${method} ${path}: ${res.body.slice(0, 300)}`);
    assert.is(res.json.errors[0].type, 'nesting_too_deep');
    assert.ok(res.json.errors[0].path.startsWith(prefix), res.json.errors[0].path.slice(0, 80));
  }
  await assertAliveAndEmpty();
});

test('nesting within the limit is accepted (a stub body 90 levels deep)', async () => {
  const port = await freePort();
  const res = await admin('POST', '/imposters', `{"port":${port},"protocol":"http","stubs":[{"responses":[{"is":{"body":${nestedObjects(90, '"x"')}}}]}]}`);
  assert.is(res.status, 201, res.body.slice(0, 300));
  assert.is((await admin('DELETE', `/imposters/${port}`)).status, 200);
});

test('brackets inside strings do not count as nesting', async () => {
  const port = await freePort();
  const res = await admin('POST', '/imposters', { port, protocol: 'http', stubs: [{ responses: [{ is: { body: '{['.repeat(5000) + '\\"' } }] }] });
  assert.is(res.status, 201, res.body.slice(0, 300));
  assert.is((await admin('DELETE', `/imposters/${port}`)).status, 200);
});

test.run();

/** docs/embedding.md: AdminApiServer, the metrics plane functions, and the lifecycle they share. */
import { createServer, type AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AdminApiServer, bindMetricsServer, parseListenAddr, PlaneLifecycle, runMetricsServer, watchAcceptLoop } from '../../app/index.js';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { freePort, http } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';

const log = createLogger({ level: 'error', quiet: true });
const json = { 'Content-Type': 'application/json' };

const test = suite('AdminApiServer');
const dir = tempDirForSuite(test, 'svc-embed-admin-');
let manager: ImposterManager;

test.before.each(() => {
  manager = new ImposterManager({ allowInjection: false, log });
});

test.after.each(async () => {
  await manager.close();
});

test('binds an OS-assigned port, gates routes with the API key, and wait() resolves after shutdown', async () => {
  const running = await new AdminApiServer('127.0.0.1:0', manager, 'sesame').withLogger(log).bind();
  const base = `http://127.0.0.1:${running.localAddr.port}`;
  assert.ok(running.localAddr.port > 0);
  assert.is((await http('GET', `${base}/imposters`)).status, 401);
  assert.is((await http('GET', `${base}/imposters`, { headers: { Authorization: 'sesame' } })).status, 200);
  const waited = running.wait();
  await running.shutdown();
  await waited;
  await running.join();
  const refused = await http('GET', `${base}/imposters`).then(
    () => 'answered',
    () => 'refused',
  );
  assert.is(refused, 'refused');
});

test('a blank API key is refused', () => {
  assert.throws(() => new AdminApiServer('127.0.0.1:0', manager, '  '), /blank/);
});

test('a file config source is loaded at bind and re-read by POST /admin/reload', async () => {
  const port = await freePort();
  const file = dir.file('imposters.json', JSON.stringify({ imposters: [{ protocol: 'http', port, stubs: [{ responses: [{ is: { body: 'one' } }] }] }] }));
  const running = await new AdminApiServer({ host: '127.0.0.1', port: 0 }, manager)
    .withLogger(log)
    .withConfigSource({ kind: 'file', path: file, noParse: false })
    .bind();
  try {
    assert.is((await http('GET', `http://127.0.0.1:${port}/`)).body, 'one');
    dir.file('imposters.json', JSON.stringify({ imposters: [{ protocol: 'http', port, stubs: [{ responses: [{ is: { body: 'two' } }] }] }] }));
    const reload = await http('POST', `http://127.0.0.1:${running.localAddr.port}/admin/reload`);
    assert.is(reload.status, 200, reload.body);
    assert.is((await http('GET', `http://127.0.0.1:${port}/`)).body, 'two');
  } finally {
    await running.shutdown();
  }
});

test('a dir config source persists runtime imposters and removes their files on delete', async () => {
  const datadir = join(dir.path, 'data');
  const running = await new AdminApiServer('127.0.0.1:0', manager).withLogger(log).withConfigSource({ kind: 'dir', path: datadir }).bind();
  const base = `http://127.0.0.1:${running.localAddr.port}`;
  try {
    const port = await freePort();
    const created = await http('POST', `${base}/imposters`, { headers: json, body: JSON.stringify({ protocol: 'http', port }) });
    assert.is(created.status, 201, created.body);
    assert.ok(existsSync(join(datadir, `${port}.json`)));
    assert.is((await http('DELETE', `${base}/imposters/${port}`)).status, 200);
    assert.not.ok(existsSync(join(datadir, `${port}.json`)));
  } finally {
    await running.shutdown();
  }
});

test('withAllowInjection(false): a scripted config source fails bind and frees the port', async () => {
  const adminPort = await freePort();
  const file = dir.file(
    'scripted.json',
    JSON.stringify({ imposters: [{ protocol: 'http', port: await freePort(), stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] }] }),
  );
  const server = () =>
    new AdminApiServer({ host: '127.0.0.1', port: adminPort }, manager).withLogger(log).withConfigSource({ kind: 'file', path: file, noParse: false });
  const failure = await server()
    .withAllowInjection(false)
    .bind()
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  assert.ok(failure, 'bind must fail');
  const running = await server().withAllowInjection(true).bind();
  assert.is(running.localAddr.port, adminPort);
  assert.is(manager.list().length, 1);
  await running.shutdown();
});

test.run();

const metrics = suite('metrics plane');
let metricsManager: ImposterManager;
metrics.before(() => {
  metricsManager = new ImposterManager({ allowInjection: false, log });
});
metrics.after(async () => {
  await metricsManager.close();
});

metrics('bindMetricsServer: port 0 is OS-assigned, GET /metrics answers, join resolves after shutdown', async () => {
  const running = await bindMetricsServer('127.0.0.1:0', metricsManager);
  assert.ok(running.localAddr.port > 0);
  const scraped = await http('GET', `http://127.0.0.1:${running.localAddr.port}/metrics`);
  assert.is(scraped.status, 200);
  assert.match(scraped.body, 'svc_requests_total');
  const joined = running.join();
  await running.shutdown();
  await joined;
});

metrics('runMetricsServer serves until its signal aborts', async () => {
  const port = await freePort();
  const stop = new AbortController();
  const run = runMetricsServer({ host: '127.0.0.1', port }, metricsManager, stop.signal);
  let answered = false;
  for (let attempt = 0; attempt < 50 && !answered; attempt += 1) {
    answered = await http('GET', `http://127.0.0.1:${port}/metrics`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (!answered) await new Promise((done) => setTimeout(done, 20));
  }
  assert.ok(answered, 'the metrics server answered');
  stop.abort();
  await run;
});

metrics.run();

const lifecycle = suite('plane lifecycle');

lifecycle('the accept-loop error goes to the first waiter only; later waits resolve', async () => {
  const plane = new PlaneLifecycle();
  const first = plane.wait().then(
    () => 'resolved',
    (err: Error) => err.message,
  );
  plane.fail(new Error('accept loop died'));
  assert.is(await first, 'accept loop died');
  assert.is(
    await plane.wait().then(
      () => 'resolved',
      () => 'rejected',
    ),
    'resolved',
  );
});

lifecycle('a fatal accept error stops the server and ends the plane; transient ones do not', async () => {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const plane = new PlaneLifecycle();
  let stops = 0;
  watchAcceptLoop(server, plane, () => {
    stops += 1;
    return new Promise<void>((done) => server.close(() => done()));
  });
  server.emit('error', Object.assign(new Error('aborted'), { code: 'ECONNABORTED' }));
  server.emit('error', Object.assign(new Error('too many files'), { code: 'EMFILE' }));
  assert.not.ok(plane.isEnded);
  assert.ok((server.address() as AddressInfo).port > 0);
  server.emit('error', Object.assign(new Error('bad fd'), { code: 'EBADF' }));
  const outcome = await plane.wait().then(
    () => 'resolved',
    (err: Error) => err.message,
  );
  assert.is(outcome, 'bad fd');
  assert.is(stops, 1);
  assert.is(server.listening, false);
});

lifecycle('listen addresses', () => {
  assert.equal(parseListenAddr('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
  assert.equal(parseListenAddr(':2525'), { host: undefined, port: 2525 });
  assert.equal(parseListenAddr('2525'), { host: undefined, port: 2525 });
  assert.equal(parseListenAddr('[::1]:80'), { host: '::1', port: 80 });
  assert.throws(() => parseListenAddr('localhost'), /listen address/);
  assert.throws(() => parseListenAddr('h:70000'), /listen address/);
});

lifecycle.run();

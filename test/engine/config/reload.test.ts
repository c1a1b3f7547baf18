import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { call, startInProcess } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';
import { startHarness } from '../../support/config-harness.js';
import { ImposterManager } from '../../../engine/manager/index.js';
import { silentLogger } from '../../../engine/log/index.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('config: POST /admin/reload');
const temp = tempDirForSuite(test, 'svc-reload-');
let n = 0;

function fresh(): { config: string; dir: string } {
  n += 1;
  const dir = join(temp.path, `d${n}`);
  mkdirSync(dir);
  return { config: join(temp.path, `config${n}.json`), dir };
}

const stub = (body: string) => ({ responses: [{ is: { body } }] });
const cycling = { responses: [{ is: { body: 'first' } }, { is: { body: 'second' } }, { is: { body: 'third' } }] };
const writeConfig = (path: string, imposters: unknown[]) => writeFileSync(path, JSON.stringify({ imposters }));

test('without a config source the reload is a 200 no-op', async () => {
  const svc = await startInProcess();
  try {
    const port = await freePort();
    await svc.admin('POST', '/imposters', { port, protocol: 'http' });
    const res = await svc.admin('POST', '/admin/reload');
    assert.is(res.status, 200);
    assert.equal(res.json.deleted, []);
    assert.is((await svc.admin('GET', `/imposters/${port}`)).status, 200);
  } finally {
    await svc.stop();
  }
});

test('the difference is applied incrementally; unchanged imposters keep recorded requests and response cycles', async () => {
  const { config } = fresh();
  const [kept, patched, replaced, dropped, added] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  writeConfig(config, [
    { port: kept, protocol: 'http', recordRequests: true, stubs: [cycling] },
    { port: patched, protocol: 'http', stubs: [stub('old')] },
    { port: replaced, protocol: 'http', name: 'before', stubs: [stub('r')] },
    { port: dropped, protocol: 'http' },
  ]);
  const svc = await startHarness({ configFile: config });
  try {
    assert.is((await call(kept, 'GET', '/one')).body, 'first');
    writeConfig(config, [
      { port: kept, protocol: 'http', recordRequests: true, stubs: [cycling] },
      { port: patched, protocol: 'http', stubs: [stub('new')] },
      { port: replaced, protocol: 'http', name: 'after', stubs: [stub('r')] },
      { port: added, protocol: 'http', stubs: [stub('added')] },
    ]);
    const res = await svc.admin('POST', '/admin/reload');
    assert.is(res.status, 200, res.body);
    assert.equal(res.json, { created: [added], replaced: [replaced], stubPatched: [patched], deleted: [dropped], unchanged: [kept] });
    assert.is((await call(kept, 'GET', '/two')).body, 'second', 'response cycle kept');
    const recorded = (await svc.admin('GET', `/imposters/${kept}`)).json.requests.map((r: any) => r.path);
    assert.equal(recorded, ['/one', '/two'], 'recorded requests kept');
    assert.is((await call(patched, 'GET', '/')).body, 'new');
    assert.is((await call(added, 'GET', '/')).body, 'added');
    assert.is((await svc.admin('GET', `/imposters/${replaced}`)).json.name, 'after');
    assert.is((await svc.admin('GET', `/imposters/${dropped}`)).status, 404);
    const again = await svc.admin('POST', '/admin/reload');
    assert.equal(again.json.unchanged.sort(), [kept, patched, replaced, added].sort());
  } finally {
    await svc.stop();
  }
});

test('an invalid new config changes nothing: bad imposter 400, bad template 500, scripted without permission 400', async () => {
  const { config } = fresh();
  const port = await freePort();
  const good = [{ port, protocol: 'http', recordRequests: true, stubs: [cycling] }];
  writeConfig(config, good);
  const svc = await startHarness({ configFile: config });
  try {
    assert.is((await call(port, 'GET', '/')).body, 'first');
    const other = await freePort();
    writeConfig(config, [
      { port, protocol: 'http', stubs: [stub('changed')] },
      { port: other, protocol: 'smtp' },
    ]);
    const invalid = await svc.admin('POST', '/admin/reload');
    assert.is(invalid.status, 400);
    assert.match(invalid.json.errors[0].message, new RegExp(`port ${other}`));

    writeFileSync(config, `{ "imposters": [<%= "x" %>] }`);
    const template = await svc.admin('POST', '/admin/reload');
    assert.is(template.status, 500);
    assert.match(template.json.errors[0].message, /unsupported template tag <%= "x" %>/);

    writeConfig(config, [{ port, protocol: 'http', stubs: [{ responses: [{ inject: 'function () { return { body: "x" }; }' }] }] }]);
    const injected = await svc.admin('POST', '/admin/reload');
    assert.is(injected.status, 400);
    assert.is(injected.json.errors[0].code, 'invalid injection');
    assert.match(injected.json.errors[0].message, new RegExp(`port ${port}`));

    assert.is((await call(port, 'GET', '/')).body, 'second', 'still the old stubs with their cycle');
    assert.is((await svc.admin('GET', `/imposters/${port}`)).json.requests.length, 2);
    assert.is((await svc.admin('GET', `/imposters/${other}`)).status, 404);
  } finally {
    await svc.stop();
  }
});

test('apply failures answer 500 with the per-port report', async () => {
  const { config } = fresh();
  const [ok, busy] = [await freePort(), await freePort()];
  writeConfig(config, [{ port: ok, protocol: 'http' }]);
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(busy, resolve));
  const svc = await startHarness({ configFile: config });
  try {
    const added = await freePort();
    writeConfig(config, [
      { port: ok, protocol: 'http' },
      { port: busy, protocol: 'http' },
      { port: added, protocol: 'http' },
    ]);
    const res = await svc.admin('POST', '/admin/reload');
    assert.is(res.status, 500);
    const report = res.json.errors[0];
    assert.equal(
      report.failed.map((f: any) => f.port),
      [busy],
    );
    assert.equal(report.created, [added]);
    assert.equal(report.unchanged, [ok]);
  } finally {
    await svc.stop();
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test('config file and data directory reload as one set', async () => {
  const { config, dir } = fresh();
  const [fromFile, fromDir, runtime, handAdded] = [await freePort(), await freePort(), await freePort(), await freePort()];
  writeConfig(config, [{ port: fromFile, protocol: 'http', stubs: [stub('file')] }]);
  writeFileSync(join(dir, `${fromDir}.json`), JSON.stringify({ port: fromDir, protocol: 'http', recordRequests: true, stubs: [stub('dir')] }));
  const svc = await startHarness({ configFile: config, datadir: dir });
  try {
    await call(fromDir, 'GET', '/seen');
    await svc.admin('POST', '/imposters', { port: runtime, protocol: 'http', stubs: [stub('runtime')] });
    await svc.admin('POST', `/imposters/${fromFile}/stubs`, { index: 0, stub: stub('runtime edit') });
    assert.ok(existsSync(join(dir, `${runtime}.json`)));

    writeConfig(config, [{ port: fromFile, protocol: 'http', stubs: [stub('file v2')] }]);
    writeFileSync(join(dir, `${handAdded}.json`), JSON.stringify({ port: handAdded, protocol: 'http', stubs: [stub('hand')] }));
    const res = await svc.admin('POST', '/admin/reload');
    assert.is(res.status, 200, res.body);
    assert.equal(res.json.created, [handAdded]);
    assert.equal(res.json.stubPatched, [fromFile]);
    assert.equal(res.json.unchanged.sort(), [fromDir, runtime].sort());
    assert.is((await call(fromFile, 'GET', '/')).body, 'file v2');
    assert.is((await svc.admin('GET', `/imposters/${fromDir}`)).json.requests.length, 1);
    assert.not.ok(existsSync(join(dir, `${fromFile}.json`)), 'config-file imposter not written');

    rmSync(join(dir, `${runtime}.json`));
    const removed = await svc.admin('POST', '/admin/reload');
    assert.equal(removed.json.deleted, [runtime]);

    writeFileSync(join(dir, 'misnamed.json'), '{}');
    const bad = await svc.admin('POST', '/admin/reload');
    assert.is(bad.status, 500);
    assert.is(bad.json.errors[0].file, join(dir, 'misnamed.json'));
    rmSync(join(dir, 'misnamed.json'));

    writeFileSync(join(dir, `${fromFile}.json`), JSON.stringify({ port: fromFile, protocol: 'http' }));
    const clash = await svc.admin('POST', '/admin/reload');
    assert.is(clash.status, 400);
    assert.match(clash.json.errors[0].message, new RegExp(`duplicate port ${fromFile}`));
    assert.equal(readdirSync(dir).sort(), [`${fromDir}.json`, `${fromFile}.json`, `${handAdded}.json`].sort());
    assert.is((await call(handAdded, 'GET', '/')).body, 'hand');
  } finally {
    await svc.stop();
  }
});

test('an imposter created while a reload applies is persisted; auto-assigned config-file imposters never are', async () => {
  const { config, dir } = fresh();
  writeConfig(config, [{ protocol: 'http', stubs: [stub('auto')] }]);
  const svc = await startHarness({ configFile: config, datadir: dir });
  try {
    for (let i = 0; i < 5; i += 1) {
      const port = await freePort();
      const [reloaded, created] = await Promise.all([svc.admin('POST', '/admin/reload'), svc.admin('POST', '/imposters', { port, protocol: 'http' })]);
      assert.is(created.status, 201);
      assert.is(reloaded.status, 200, reloaded.body);
      assert.ok(existsSync(join(dir, `${port}.json`)), `runtime imposter ${port} written`);
    }
    const auto = (await svc.admin('GET', '/imposters')).json.imposters.map((i: any) => i.port).filter((port: number) => !existsSync(join(dir, `${port}.json`)));
    assert.is(auto.length, 1, 'only the config-file imposter has no file');
  } finally {
    await svc.stop();
  }
});

test('PUT /imposters re-sending the same stubs without ids keeps them unchanged: ids, recorded requests and cycles', async () => {
  const svc = await startInProcess();
  try {
    const port = await freePort();
    const payload = { imposters: [{ port, protocol: 'http', recordRequests: true, stubs: [cycling, stub('other')] }] };
    assert.is((await svc.admin('PUT', '/imposters', payload)).status, 200);
    const ids = (await svc.admin('GET', `/imposters/${port}`)).json.stubs.map((s: any) => s.id);
    assert.is(ids.length, 2);
    assert.ok(
      ids.every((id: unknown) => typeof id === 'string'),
      'ids generated over HTTP',
    );
    assert.is((await call(port, 'GET', '/')).body, 'first');
    assert.is((await svc.admin('PUT', '/imposters', payload)).status, 200);
    assert.is((await call(port, 'GET', '/')).body, 'second', 'response cycle kept');
    const detail = (await svc.admin('GET', `/imposters/${port}`)).json;
    assert.equal(
      detail.stubs.map((s: any) => s.id),
      ids,
      'same ids',
    );
    assert.is(detail.requests.length, 2, 'recorded requests kept');
    const reordered = {
      imposters: [
        {
          port,
          protocol: 'http',
          recordRequests: true,
          stubs: [{ predicates: [{ equals: { path: '/new' } }], responses: [{ is: { body: 'new' } }] }, cycling],
        },
      ],
    };
    await svc.admin('PUT', '/imposters', reordered);
    const patched = (await svc.admin('GET', `/imposters/${port}`)).json.stubs;
    assert.is(patched[1].id, ids[0], 'the unchanged stub keeps its id at its new index');
    assert.ok(typeof patched[0].id === 'string' && !ids.includes(patched[0].id), 'the new stub gets a fresh id');
    assert.is((await call(port, 'GET', '/')).body, 'third', 'and its cycle');
  } finally {
    await svc.stop();
  }
});

test('PUT /imposters semantics: explicit ports first, then auto-assigned ones, which are always recreated', async () => {
  const manager = new ImposterManager({ allowInjection: false, log: silentLogger, host: '127.0.0.1' });
  const events: string[] = [];
  manager.observe({ onLifecycle: (action, port) => events.push(`${action}:${port}`) });
  try {
    const [a, b] = [await freePort(), await freePort()];
    const first = await manager.applyAll([{ protocol: 'http' }, { port: a, protocol: 'http' }, { port: b, protocol: 'http' }]);
    const auto = first.imposters.map((i) => i.port).find((p) => p !== a && p !== b)!;
    assert.equal(events, [`created:${a}`, `created:${b}`, `created:${auto}`]);
    events.length = 0;
    const second = await manager.applyAll([{ protocol: 'http' }, { port: b, protocol: 'http' }]);
    assert.equal(second.report.deleted.sort(), [a, auto].sort());
    assert.equal(second.report.unchanged, [b]);
    assert.is(second.report.created.length, 1);
    assert.equal(events.slice(-1), [`created:${second.report.created[0]}`], 'the auto-assigned imposter comes last');
    let failed: any;
    try {
      await manager.applyAll([
        { port: b, protocol: 'http' },
        { port: b, protocol: 'http' },
      ]);
    } catch (err) {
      failed = err;
    }
    assert.is(failed?.status, 400);
    assert.equal(
      manager
        .list()
        .map((i) => i.port)
        .sort(),
      [b, second.report.created[0]].sort(),
      'running set unchanged',
    );
  } finally {
    await manager.close();
  }
});

test.run();

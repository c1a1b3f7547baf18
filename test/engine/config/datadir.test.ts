import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { call } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';
import { startHarness } from '../../support/config-harness.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('config: data directory');
const temp = tempDirForSuite(test, 'svc-datadir-');
let n = 0;

function freshDir(): string {
  n += 1;
  const dir = join(temp.path, `d${n}`);
  mkdirSync(dir);
  return dir;
}

const stub = (body: string) => ({ responses: [{ is: { body } }] });
const onDisk = (dir: string, port: number) => JSON.parse(readFileSync(join(dir, `${port}.json`), 'utf8'));

test('edits inside the stub list are written as the replayable JSON, byte for byte, and restored after a restart', async () => {
  const dir = freshDir();
  const port = await freePort();
  const route = (path: string) => ({ predicates: [{ equals: { path } }], responses: [{ is: { body: path } }] });
  let svc = await startHarness({ datadir: dir });
  try {
    await svc.admin('POST', '/imposters', { port, protocol: 'http', name: 'edits', stubs: ['/a', '/b', '/c', '/d'].map(route) });
    const edits: Array<[string, string, unknown]> = [
      ['POST', `/imposters/${port}/stubs`, { index: 1, stub: route('/inserted') }],
      ['PUT', `/imposters/${port}/stubs/3`, route('/replaced')],
      ['DELETE', `/imposters/${port}/stubs/0`, undefined],
      ['POST', `/imposters/${port}/stubs`, { index: 0, stub: { responses: [{ is: { body: 'first' } }] } }],
      ['DELETE', `/imposters/${port}/stubs/4`, undefined],
      ['POST', `/imposters/${port}/stubs`, { stub: route('/last') }],
    ];
    for (const [method, path, body] of edits) {
      assert.is((await svc.admin(method, path, body)).status, 200, `${method} ${path}`);
      const replayable = (await svc.admin('GET', `/imposters/${port}?replayable=true`)).json;
      assert.is(readFileSync(join(dir, `${port}.json`), 'utf8'), JSON.stringify(replayable, null, 2), `after ${method} ${path}`);
    }
    const before = (await svc.admin('GET', `/imposters/${port}?replayable=true`)).json;
    assert.equal(
      before.stubs.map((s: any) => s.responses[0].is.body),
      ['first', '/inserted', '/b', '/replaced', '/last'],
    );
    await svc.stop();
    svc = await startHarness({ datadir: dir });
    assert.equal((await svc.admin('GET', `/imposters/${port}?replayable=true`)).json, before);
  } finally {
    await svc.stop();
  }
});

test('create, stub edits, replace and delete are reflected on disk, with no temp file left', async () => {
  const dir = freshDir();
  const svc = await startHarness({ datadir: dir });
  try {
    const port = await freePort();
    assert.is((await svc.admin('POST', '/imposters', { port, protocol: 'http', stubs: [stub('one')] })).status, 201);
    const created = onDisk(dir, port);
    assert.is(created.port, port);
    assert.equal(
      created.stubs.map((s: any) => s.responses[0].is.body),
      ['one'],
    );
    assert.equal(created, (await svc.admin('GET', `/imposters/${port}?replayable=true`)).json, 'the file is the replayable JSON');

    await svc.admin('POST', `/imposters/${port}/stubs`, { stub: stub('two') });
    assert.equal(
      onDisk(dir, port).stubs.map((s: any) => s.responses[0].is.body),
      ['one', 'two'],
    );
    await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: [stub('three')] });
    assert.equal(
      onDisk(dir, port).stubs.map((s: any) => s.responses[0].is.body),
      ['three'],
    );
    await svc.admin('DELETE', `/imposters/${port}/stubs/0`);
    assert.equal(onDisk(dir, port).stubs, []);

    const put = await svc.admin('PUT', '/imposters', { imposters: [{ port, protocol: 'http', name: 'renamed', stubs: [stub('four')] }] });
    assert.is(put.status, 200);
    assert.is(onDisk(dir, port).name, 'renamed');

    assert.is((await svc.admin('DELETE', `/imposters/${port}`)).status, 200);
    assert.not.ok(existsSync(join(dir, `${port}.json`)));
    assert.equal(readdirSync(dir), [], 'no temp files');
  } finally {
    await svc.stop();
  }
});

test('DELETE /imposters removes every file; PUT /imposters deletes absent ones and persists auto-assigned ports', async () => {
  const dir = freshDir();
  const svc = await startHarness({ datadir: dir });
  try {
    const [a, b] = [await freePort(), await freePort()];
    await svc.admin('POST', '/imposters', { port: a, protocol: 'http' });
    await svc.admin('POST', '/imposters', { port: b, protocol: 'http' });
    const put = await svc.admin('PUT', '/imposters', {
      imposters: [
        { protocol: 'http', stubs: [stub('auto')] },
        { port: b, protocol: 'http' },
      ],
    });
    assert.is(put.status, 200);
    const ports = put.json.imposters.map((i: any) => i.port);
    assert.is(ports.length, 2);
    const auto = ports.find((p: number) => p !== b);
    assert.ok(auto >= 49152, 'auto-assigned from the dynamic range');
    assert.equal(readdirSync(dir).sort(), [`${auto}.json`, `${b}.json`].sort());
    assert.is((await svc.admin('DELETE', '/imposters')).status, 200);
    assert.equal(readdirSync(dir), []);
  } finally {
    await svc.stop();
  }
});

test('a file that cannot be removed answers 503 and the imposter keeps serving', async () => {
  const dir = freshDir();
  const svc = await startHarness({ datadir: dir });
  try {
    const [stuck, free] = [await freePort(), await freePort()];
    await svc.admin('POST', '/imposters', { port: stuck, protocol: 'http', stubs: [stub('still here')] });
    await svc.admin('POST', '/imposters', { port: free, protocol: 'http' });
    // A directory in place of the file makes removal fail even for root.
    rmSync(join(dir, `${stuck}.json`));
    mkdirSync(join(dir, `${stuck}.json`, 'keep'), { recursive: true });

    const single = await svc.admin('DELETE', `/imposters/${stuck}`);
    assert.is(single.status, 503);
    assert.is(single.json.errors[0].port, stuck);
    assert.is(single.json.errors[0].file, join(dir, `${stuck}.json`));
    assert.is((await call(stuck, 'GET', '/')).body, 'still here');

    const all = await svc.admin('DELETE', '/imposters');
    assert.is(all.status, 503);
    assert.is(all.json.errors.length, 1);
    assert.is(all.json.errors[0].port, stuck);
    assert.is((await svc.admin('GET', `/imposters/${free}`)).status, 404, 'the other imposter was deleted');
    assert.is((await call(stuck, 'GET', '/')).body, 'still here');
    assert.not.ok(existsSync(join(dir, `${free}.json`)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await svc.stop();
  }
});

test('config-file imposters and their runtime edits are never written; runtime imposters are', async () => {
  const dir = freshDir();
  const [fixed, runtime] = [await freePort(), await freePort()];
  const config = join(temp.path, `config-${n}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      imposters: [
        { port: fixed, protocol: 'http', stubs: [stub('file')] },
        { protocol: 'http', stubs: [stub('auto')] },
      ],
    }),
  );
  const svc = await startHarness({ configFile: config, datadir: dir });
  try {
    const listed = (await svc.admin('GET', '/imposters')).json.imposters.map((i: any) => i.port);
    assert.is(listed.length, 2);
    const auto = listed.find((p: number) => p !== fixed);
    await svc.admin('POST', `/imposters/${fixed}/stubs`, { stub: stub('edited') });
    await svc.admin('PUT', `/imposters/${auto}/stubs`, { stubs: [stub('edited')] });
    assert.equal(readdirSync(dir), [], 'nothing written for config-file imposters');
    await svc.admin('POST', '/imposters', { port: runtime, protocol: 'http' });
    assert.equal(readdirSync(dir), [`${runtime}.json`]);
    assert.is((await svc.admin('DELETE', `/imposters/${fixed}`)).status, 200);
  } finally {
    await svc.stop();
  }
});

test('startup skips misnamed, port-less, unreadable and scripted files, lists them and never touches them', async () => {
  const dir = freshDir();
  const good = await freePort();
  writeFileSync(join(dir, `${good}.json`), JSON.stringify({ port: good, protocol: 'http', stubs: [stub('good')] }));
  const bad: Record<string, string> = {
    '1234.json': JSON.stringify({ port: 4321, protocol: 'http' }),
    '2345.json': JSON.stringify({ protocol: 'http' }),
    '3456.json': '{ "port": 3456, ',
    '4567.json': JSON.stringify({ port: 4567, protocol: 'http', stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] }),
    'notes.txt': 'hello',
    'imposter.json': JSON.stringify({ port: 5678, protocol: 'http' }),
  };
  for (const [name, text] of Object.entries(bad)) writeFileSync(join(dir, name), text);
  const before = Object.keys(bad).map((name) => statSync(join(dir, name)).mtimeMs);
  const svc = await startHarness({ datadir: dir });
  try {
    assert.is(svc.summary.fromDataDir, 1);
    const skipped = Object.fromEntries(svc.summary.skipped.map((s) => [s.file.slice(dir.length + 1), s.reason]));
    assert.equal(Object.keys(skipped).sort(), Object.keys(bad).sort());
    assert.match(skipped['1234.json'], /declares port 4321/);
    assert.match(skipped['2345.json'], /declares no port/);
    assert.match(skipped['3456.json'], /not readable as JSON/);
    assert.match(skipped['4567.json'], /JavaScript injection is not allowed/);
    assert.match(skipped['notes.txt'], /not named <port>\.json/);
    assert.is((await call(good, 'GET', '/')).body, 'good');
    assert.equal(
      (await svc.admin('GET', '/imposters')).json.imposters.map((i: any) => i.port),
      [good],
    );
    // An imposter taking a skipped file's port is served, but that file stays as it was.
    assert.is((await svc.admin('POST', '/imposters', { port: 1234, protocol: 'http', stubs: [stub('x')] })).status, 201);
    assert.is((await svc.admin('DELETE', '/imposters/1234')).status, 200);
    for (const [i, name] of Object.keys(bad).entries()) {
      assert.is(readFileSync(join(dir, name), 'utf8'), bad[name]);
      assert.is(statSync(join(dir, name)).mtimeMs, before[i]);
    }
  } finally {
    await svc.stop();
  }
});

test('a persisted imposter whose port is taken is listed and left alone; the others start', async () => {
  const dir = freshDir();
  const [taken, fine] = [await freePort(), await freePort()];
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(taken, resolve));
  const text = JSON.stringify({ port: taken, protocol: 'http' });
  writeFileSync(join(dir, `${taken}.json`), text);
  writeFileSync(join(dir, `${fine}.json`), JSON.stringify({ port: fine, protocol: 'http', stubs: [stub('fine')] }));
  try {
    const svc = await startHarness({ datadir: dir });
    try {
      assert.is(svc.summary.fromDataDir, 1);
      assert.is(svc.summary.skipped.length, 1);
      assert.is(svc.summary.skipped[0].file, join(dir, `${taken}.json`));
      assert.match(svc.summary.skipped[0].reason, /failed to start: Port \d+ is already in use/);
      assert.is((await call(fine, 'GET', '/')).body, 'fine');
      assert.is(readFileSync(join(dir, `${taken}.json`), 'utf8'), text);
    } finally {
      await svc.stop();
    }
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test('a restart on the same directory restores the imposters exactly', async () => {
  const dir = freshDir();
  const [a, b] = [await freePort(), await freePort()];
  const first = await startHarness({ datadir: dir });
  let saved: unknown;
  try {
    await first.admin('POST', '/imposters', {
      port: a,
      protocol: 'http',
      name: 'alpha',
      recordRequests: true,
      defaultResponse: { statusCode: 418 },
      stubs: [
        stub('a1'),
        {
          predicates: [{ equals: { path: '/x' } }],
          responses: [{ is: { statusCode: 201, headers: { 'X-One': '1' }, body: { json: true } } }, { is: { body: 'second' } }],
        },
      ],
    });
    await first.admin('POST', '/imposters', { port: b, protocol: 'http', stubs: [stub('b1')] });
    await first.admin('POST', `/imposters/${b}/stubs`, { index: 0, stub: stub('b0') });
    await first.admin('PUT', `/imposters/${a}/stubs/0`, stub('a1-changed'));
    saved = (await first.admin('GET', '/imposters?replayable=true')).json;
  } finally {
    await first.stop();
  }
  const second = await startHarness({ datadir: dir });
  try {
    assert.equal((await second.admin('GET', '/imposters?replayable=true')).json, saved);
    assert.is((await call(b, 'GET', '/')).body, 'b0');
  } finally {
    await second.stop();
  }
});

test.run();

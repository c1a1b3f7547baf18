import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { freePort, http, repoRoot, startSvc } from '../../support/servers.js';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { svcCli } from '../../support/svc-cli.js';

const test = suite('cli: svc start');
const temp = tempDirForSuite(test, 'svc-cli-');

test('--configfile loads imposters, --pidfile is written while serving and removed on SIGTERM', async () => {
  const port = await freePort();
  const config = join(temp.path, 'imposters.json');
  const pidfile = join(temp.path, 'svc.pid');
  writeFileSync(config, JSON.stringify({ imposters: [{ port, protocol: 'http', stubs: [{ responses: [{ is: { body: 'from file' } }] }] }] }));
  const svc = await startSvc({ args: ['--configfile', config, '--pidfile', pidfile] });
  try {
    const res = await http('GET', `http://127.0.0.1:${port}/`);
    assert.is(res.body, 'from file');
    assert.ok(existsSync(pidfile));
    assert.match(readFileSync(pidfile, 'utf8'), /^\d+$/);
    const listed = JSON.parse((await http('GET', `http://127.0.0.1:${svc.adminPort}/imposters/${port}`)).body);
    assert.is(listed.stubs[0].id, undefined, 'no generated id for config-file stubs');
  } finally {
    await svc.stop();
  }
  assert.not.ok(existsSync(pidfile), 'pidfile removed on shutdown');
});

test('MB_PORT sets the admin port; --allowInjection shows in /config', async () => {
  const port = await freePort();
  const svc = await startSvc({ adminPort: port, env: { MB_PORT: String(port) }, args: ['--allowInjection', '--mock', '--debug'] });
  try {
    const config = JSON.parse((await http('GET', `http://127.0.0.1:${port}/config`)).body);
    assert.is(config.options.allowInjection, true);
    assert.is(config.options.port, port);
  } finally {
    await svc.stop();
  }
});

test('a config file with an invalid imposter fails startup with exit 1', () => {
  const config = join(temp.path, 'bad.json');
  writeFileSync(config, JSON.stringify({ imposters: [{ protocol: 'smtp', port: 1 }] }));
  const result = spawnSync(process.execPath, [...svcCli, 'start', '--port', '0', '--nologfile', '--configfile', config], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.is(result.status, 1);
  assert.match(result.stderr + result.stdout, /smtp protocol is not yet supported/);
});

test('a blank --api-key is a startup error', () => {
  const result = spawnSync(process.execPath, [...svcCli, '--api-key', ' '], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.is(result.status, 2);
  assert.match(result.stderr, /api-key/);
});

test('--api-key gates the admin API but not imposter ports or the gateway', async () => {
  const svc = await startSvc({ args: ['--api-key', 'secret'] });
  try {
    const base = `http://127.0.0.1:${svc.adminPort}`;
    assert.is((await http('GET', `${base}/imposters`)).status, 401);
    assert.is((await http('GET', `${base}/imposters`, { headers: { Authorization: 'wrong' } })).status, 401);
    const port = await freePort();
    const created = await http('POST', `${base}/imposters`, {
      headers: { Authorization: 'secret' },
      body: JSON.stringify({ port, protocol: 'http', stubs: [{ responses: [{ is: { body: 'open' } }] }] }),
    });
    assert.is(created.status, 201);
    assert.is((await http('GET', `http://127.0.0.1:${port}/`)).body, 'open');
    assert.is((await http('GET', `${base}/__svc/${port}/`)).body, 'open');
  } finally {
    await svc.stop();
  }
});

test.run();

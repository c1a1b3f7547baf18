import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, startSvc, type RunningServer } from '../../support/servers.js';
import { call } from '../../support/in-process.js';

let dir = '';
let server: RunningServer | undefined;
let port = 0;
let scriptsDir = '';
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-config-script-'));
  mkdirSync(join(dir, 'scripts'));
  scriptsDir = join(dir, 'admin-scripts');
  mkdirSync(scriptsDir);
  writeFileSync(join(dir, 'scripts', 'answer.rhai'), 'fn respond(ctx) { http(200, "from the config dir") }');
  writeFileSync(join(scriptsDir, 'admin.js'), 'return http(200, "from the scripts dir");');
  port = await freePort();
  writeFileSync(
    join(dir, 'imposters.json'),
    JSON.stringify({
      imposters: [{ port, protocol: 'http', stubs: [{ responses: [{ _svc: { script: { file: 'scripts/answer.rhai' } } }] }] }],
    }),
  );
  server = await startSvc({
    args: ['--allowInjection', '--configfile', join(dir, 'imposters.json'), '--scripts-dir', scriptsDir, '--metrics-port', String(await freePort())],
  });
});
test.after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a config-file imposter resolves file: scripts against the config file directory', async () => {
  const res = await call(port, 'GET', '/');
  assert.is(res.status, 200);
  assert.is(res.body, 'from the config dir');
});

test('an admin-created imposter resolves file: scripts under --scripts-dir (engine from .js)', async () => {
  const adminPort = server!.adminPort;
  const imposterPort = await freePort();
  const created = await fetch(`http://127.0.0.1:${adminPort}/imposters`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ port: imposterPort, protocol: 'http', stubs: [{ responses: [{ _svc: { script: { file: 'admin.js' } } }] }] }),
  });
  assert.is(created.status, 201, await created.text());
  assert.is((await call(imposterPort, 'GET', '/')).body, 'from the scripts dir');
  const escaping = await fetch(`http://127.0.0.1:${adminPort}/imposters`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ protocol: 'http', stubs: [{ responses: [{ _svc: { script: { file: '../scripts/answer.rhai' } } }] }] }),
  });
  assert.is(escaping.status, 400);
  assert.match(await escaping.text(), /outside the scripts directory/);
});

test.run();

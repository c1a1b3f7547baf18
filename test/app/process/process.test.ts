/** docs/embedding.md process helpers, as the CLI's stop/restart/save use them. */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_PIDFILE, saveImposters, stopForRestart, stopServer } from '../../../app/index.js';
import { startInProcess } from '../../support/in-process.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('process helpers');
const dir = tempDirForSuite(test, 'svc-embed-process-');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('DEFAULT_PIDFILE is the CLI default', () => {
  assert.is(DEFAULT_PIDFILE, 'svc.pid');
});

test('stopServer: a missing pidfile is success; a stale one is removed', async () => {
  const missing = join(dir.path, 'missing.pid');
  await stopServer(missing);
  await stopForRestart(missing);
  const stale = join(dir.path, 'stale.pid');
  const exited = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => exited.once('exit', done));
  writeFileSync(stale, String(exited.pid));
  await stopServer(stale);
  assert.not.ok(existsSync(stale));
});

test('stopServer: SIGTERMs the running process, waits for it, removes the file', async () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((done) => child.once('exit', done));
  const pidFile = join(dir.path, 'running.pid');
  writeFileSync(pidFile, String(child.pid));
  await stopServer(pidFile);
  await exited;
  assert.not.ok(alive(child.pid!));
  assert.not.ok(existsSync(pidFile));
});

test('saveImposters writes the replayable configuration; a refused call writes nothing', async () => {
  const svc = await startInProcess({ apiKey: 'key' });
  try {
    const created = await svc.admin(
      'POST',
      '/imposters',
      { protocol: 'http', stubs: [{ responses: [{ proxy: { to: 'http://127.0.0.1:9' } }] }] },
      { Authorization: 'key' },
    );
    assert.is(created.status, 201);
    const file = join(dir.path, 'saved.json');
    await saveImposters({ host: '127.0.0.1', port: svc.adminPort, apiKey: 'key' }, file);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    assert.is(saved.imposters.length, 1);
    assert.ok(saved.imposters[0].stubs[0].responses[0].proxy, 'proxies kept');
    const withoutProxies = join(dir.path, 'no-proxies.json');
    await saveImposters({ host: '127.0.0.1', port: svc.adminPort, apiKey: 'key' }, withoutProxies, true);
    assert.equal(JSON.parse(readFileSync(withoutProxies, 'utf8')).imposters[0].stubs, []);
    const refused = join(dir.path, 'refused.json');
    const failure = await saveImposters({ host: '127.0.0.1', port: svc.adminPort }, refused).then(
      () => undefined,
      (err: Error) => err.message,
    );
    assert.match(failure ?? '', /^401/);
    assert.not.ok(existsSync(refused));
  } finally {
    await svc.stop();
  }
});

test.run();

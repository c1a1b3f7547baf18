import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, http } from '../../support/servers.js';
import { runSvc } from '../../support/run-svc.js';
import { processAlive } from '../../../app/index.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('cli: restart, stop, healthcheck, save, replay');
const KEY = 'lifecycle-key';
const temp = tempDirForSuite(test, 'svc-lifecycle-');

const alive = processAlive;

const pidIn = (file: string) => Number(readFileSync(file, 'utf8'));

test('mountebank test-tooling forms: restart --port --logfile --pidfile, save, replay, healthcheck, stop', async () => {
  const [port, metrics, imposter] = [await freePort(), await freePort(), await freePort()];
  const pidfile = join(temp.path, 'test.pid');
  const startArgs = ['--port', String(port), '--logfile', 'mb-test.log', '--pidfile', 'test.pid', '--metrics-port', String(metrics), '--api-key', KEY];
  const admin = (method: string, path: string, body?: unknown) =>
    http(method, `http://127.0.0.1:${port}${path}`, {
      headers: { Authorization: KEY },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  try {
    const first = await runSvc(['restart', ...startArgs], { cwd: temp.path });
    assert.is(first.status, 0, first.stderr);
    assert.ok(existsSync(pidfile), 'pidfile written before restart returns');
    const firstPid = pidIn(pidfile);
    assert.ok(alive(firstPid));
    assert.is((await admin('GET', '/health')).status, 200, 'serving once the pidfile exists');
    assert.match(readFileSync(join(temp.path, 'mb-test.log'), 'utf8'), /now taking orders/);

    await admin('POST', '/imposters', {
      port: imposter,
      protocol: 'http',
      stubs: [{ responses: [{ proxy: { to: 'http://127.0.0.1:1' } }] }, { responses: [{ is: { body: 'kept' } }] }],
    });
    // Independent client commands run side by side: each one is a process start.
    const [healthy, unauthorized, noKey, full, trimmed] = await Promise.all([
      runSvc(['healthcheck', '--port', String(port), '--api-key', KEY]),
      runSvc(['healthcheck', '--port', String(port)]),
      runSvc(['save', '--port', String(port), '--savefile', 'refused.json'], { cwd: temp.path }),
      runSvc(['save', 'full.json', '--port', String(port)], { cwd: temp.path, env: { MB_APIKEY: KEY } }),
      runSvc(['save', '--port', String(port), '--savefile', 'trimmed.json', '--removeProxies', '--api-key', KEY], { cwd: temp.path }),
    ]);
    assert.is(healthy.status, 0, healthy.stderr);
    assert.is(unauthorized.status, 1);
    assert.match(unauthorized.stderr, /401/);
    assert.is(noKey.status, 1);
    assert.match(noKey.stderr, /401/);
    assert.not.ok(existsSync(join(temp.path, 'refused.json')), 'nothing written on a non-2xx answer');
    assert.is(full.status, 0, full.stderr);
    const saved = JSON.parse(readFileSync(join(temp.path, 'full.json'), 'utf8'));
    assert.equal(saved, JSON.parse((await admin('GET', '/imposters?replayable=true')).body));
    assert.is(saved.imposters[0].stubs.length, 2);
    assert.is(trimmed.status, 0, trimmed.stderr);
    assert.equal(
      JSON.parse(readFileSync(join(temp.path, 'trimmed.json'), 'utf8')).imposters[0].stubs.map((s: any) => s.responses[0].is.body),
      ['kept'],
    );

    const replay = await runSvc(['replay', '--port', String(port), '--api-key', KEY]);
    assert.is(replay.status, 0, replay.stderr);
    const replayed = JSON.parse((await admin('GET', `/imposters/${imposter}?replayable=true`)).body);
    assert.equal(
      replayed.stubs.map((s: any) => s.responses[0].is?.body),
      ['kept'],
    );

    const second = await runSvc(['restart', ...startArgs, '--configfile', 'full.json'], { cwd: temp.path });
    assert.is(second.status, 0, second.stderr);
    const secondPid = pidIn(pidfile);
    assert.is.not(secondPid, firstPid);
    assert.not.ok(alive(firstPid), 'the old server was stopped');
    assert.equal(JSON.parse((await admin('GET', '/imposters?replayable=true')).body), saved, 'the saved file loads back as it was');

    const stop = await runSvc(
      ['stop', '--port', String(port), '--pidfile', 'test.pid', '--logfile', 'mb-test.log', '--allowInjection', '--mock', '--debug', '--localOnly'],
      { cwd: temp.path },
    );
    assert.is(stop.status, 0, stop.stderr);
    assert.not.ok(existsSync(pidfile), 'pidfile removed');
    assert.not.ok(alive(secondPid), 'process gone');
    const [offlineHealth, offline, stopAgain] = await Promise.all([
      runSvc(['healthcheck', '--port', String(port)]),
      runSvc(['save', 'offline.json', '--port', String(port)], { cwd: temp.path }),
      runSvc(['stop', '--pidfile', 'test.pid'], { cwd: temp.path }),
    ]);
    assert.is(offlineHealth.status, 1);
    assert.is(offline.status, 1);
    assert.match(offline.stderr, /no svc process running/);
    assert.not.ok(existsSync(join(temp.path, 'offline.json')));
    assert.is(stopAgain.status, 0, 'a missing pidfile is success');
  } finally {
    if (existsSync(pidfile) && alive(pidIn(pidfile))) process.kill(pidIn(pidfile), 'SIGKILL');
  }
});

test('a stale pidfile is cleaned up as success; a failing restart reports why', async () => {
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  const stale = join(temp.path, 'stale.pid');
  writeFileSync(stale, String(dead));
  assert.is((await runSvc(['stop', '--pidfile', stale])).status, 0);
  assert.not.ok(existsSync(stale));

  const bad = join(temp.path, 'bad.json');
  writeFileSync(bad, '{ "imposters": [ { "protocol": "smtp" } ] }');
  const failed = await runSvc(['restart', '--port', String(await freePort()), '--pidfile', join(temp.path, 'never.pid'), '--configfile', bad], {
    cwd: temp.path,
  });
  assert.is(failed.status, 1);
  assert.match(failed.stderr, /exited with status 1/);
  assert.match(failed.stderr, /smtp/);
  assert.not.ok(existsSync(join(temp.path, 'never.pid')));
});

test.run();

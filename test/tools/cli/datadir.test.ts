import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, http, startSvc, type RunningServer } from '../../support/servers.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('cli: --datadir with the real binary');
const temp = tempDirForSuite(test, 'svc-cli-datadir-');

const stub = (body: string) => ({ responses: [{ is: { body } }] });

function client(svc: RunningServer) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await http(method, `http://127.0.0.1:${svc.adminPort}${path}`, { body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: res.body ? JSON.parse(res.body) : undefined };
  };
}

async function pidOf(pidfile: string): Promise<number> {
  // Generous: a cold start under a load of 30 takes seconds.
  const giveUp = Date.now() + 120_000;
  while (!existsSync(pidfile) && Date.now() < giveUp) await new Promise((resolve) => setTimeout(resolve, 20));
  return Number(readFileSync(pidfile, 'utf8'));
}

test('skip summary at startup, reload of config file + data directory, and a restart that restores exactly', async () => {
  const dir = join(temp.path, 'restore');
  mkdirSync(dir);
  writeFileSync(join(dir, 'notes.txt'), 'not an imposter');
  writeFileSync(join(dir, '99.json'), JSON.stringify({ port: 98, protocol: 'http' }));
  const [fromFile, a, b, hand] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const config = join(temp.path, 'restore.json');
  writeFileSync(config, JSON.stringify({ imposters: [{ port: fromFile, protocol: 'http', stubs: [stub('file v1')] }] }));
  const args = ['--configfile', config, '--datadir', dir, '--metrics-port', String(await freePort()), '--pidfile', join(temp.path, 'restore.pid')];
  let expected: unknown;
  const first = await startSvc({ args });
  try {
    const admin = client(first);
    const warnings = (await admin('GET', '/logs')).json.logs
      .filter((l: any) => l.level === 'warn')
      .map((l: any) => l.message)
      .join('\n');
    assert.match(warnings, /skipped 2 file\(s\)/);
    assert.ok(warnings.includes(`${join(dir, '99.json')}: declares port 98 but is named 99.json`), warnings);
    assert.ok(warnings.includes(`${join(dir, 'notes.txt')}: not named <port>.json`), warnings);

    await admin('POST', '/imposters', { port: a, protocol: 'http', name: 'a', stubs: [stub('a1'), stub('a2')] });
    await admin('POST', '/imposters', { port: b, protocol: 'http', recordRequests: true, stubs: [stub('b1')] });
    await admin('PUT', `/imposters/${a}/stubs/1`, stub('a2 changed'));
    await admin('POST', `/imposters/${b}/stubs`, { stub: { predicates: [{ equals: { method: 'POST' } }], responses: [{ is: { statusCode: 202 } }] } });

    writeFileSync(config, JSON.stringify({ imposters: [{ port: fromFile, protocol: 'http', stubs: [stub('file v2')] }] }));
    writeFileSync(join(dir, `${hand}.json`), JSON.stringify({ port: hand, protocol: 'http', stubs: [stub('by hand')] }));
    const refused = await admin('POST', '/admin/reload');
    assert.is(refused.status, 500, 'misnamed files make the reload fail');
    assert.equal(
      refused.json.errors.map((e: any) => e.file),
      [join(dir, '99.json'), join(dir, 'notes.txt')],
    );
    assert.is((await http('GET', `http://127.0.0.1:${fromFile}/`)).body, 'file v1', 'nothing changed');

    rmSync(join(dir, 'notes.txt'));
    rmSync(join(dir, '99.json'));
    const reloaded = await admin('POST', '/admin/reload');
    assert.is(reloaded.status, 200);
    assert.equal(reloaded.json.created, [hand]);
    assert.equal(reloaded.json.stubPatched, [fromFile]);
    assert.equal(
      reloaded.json.unchanged,
      [a, b].sort((x, y) => x - y),
    );
    assert.is((await http('GET', `http://127.0.0.1:${fromFile}/`)).body, 'file v2');
    assert.equal(readdirSync(dir).sort(), [`${a}.json`, `${b}.json`, `${hand}.json`].sort());
    expected = (await admin('GET', '/imposters?replayable=true')).json;
  } finally {
    await first.stop();
  }
  const second = await startSvc({ args });
  try {
    assert.equal((await client(second)('GET', '/imposters?replayable=true')).json, expected);
    assert.is((await http('GET', `http://127.0.0.1:${a}/`)).body, 'a1');
  } finally {
    await second.stop();
  }
});

test('kill -9 during heavy admin writes never leaves a torn file and loses no acknowledged write', async () => {
  const dir = join(temp.path, 'crash');
  const pidfile = join(temp.path, 'crash.pid');
  const ports = [await freePort(), await freePort(), await freePort()].sort((x, y) => x - y);
  const acknowledged = new Map<number, number>(ports.map((p) => [p, 0]));
  const filler = 'x'.repeat(8 * 1024);
  for (let round = 0; round < 5; round += 1) {
    rmSync(pidfile, { force: true });
    const svc = await startSvc({ args: ['--datadir', dir, '--pidfile', pidfile, '--metrics-port', String(await freePort())] });
    try {
      const admin = client(svc);
      const listed = (await admin('GET', '/imposters')).json.imposters.map((i: any) => i.port);
      if (round === 0) {
        for (const port of ports) await admin('POST', '/imposters', { port, protocol: 'http', stubs: [] });
      } else {
        assert.equal(listed, ports, `round ${round}: every imposter restored`);
        for (const port of ports) {
          const stubs = (await admin('GET', `/imposters/${port}`)).json.stubs.length;
          assert.ok(stubs >= acknowledged.get(port)!, `round ${round}: port ${port} kept ${stubs} of ${acknowledged.get(port)} acknowledged stubs`);
          acknowledged.set(port, stubs);
        }
        assert.not.ok(
          readdirSync(dir).some((name) => name.endsWith('.tmp')),
          'stale temp files cleared at startup',
        );
      }
      const pid = await pidOf(pidfile);
      const killAfter = 20 + Math.floor(Math.random() * 60);
      let done = 0;
      let killed = false;
      const stream = async (port: number) => {
        for (let i = 0; i < 34 && !killed; i += 1) {
          try {
            const res = await admin('POST', `/imposters/${port}/stubs`, { stub: stub(`${round}-${i}-${filler}`) });
            if (res.status === 200) acknowledged.set(port, acknowledged.get(port)! + 1);
          } catch {
            return;
          }
          done += 1;
          if (done === killAfter && !killed) {
            killed = true;
            process.kill(pid, 'SIGKILL');
          }
        }
      };
      await Promise.all(ports.map(stream));
      assert.ok(killed, `round ${round}: killed after ${killAfter} writes`);
    } finally {
      await svc.stop();
    }
    for (const name of readdirSync(dir)) {
      if (name.endsWith('.tmp')) continue;
      const port = Number(/^(\d+)\.json$/.exec(name)?.[1]);
      const doc = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      assert.is(doc.port, port, `${name} is whole`);
      assert.ok(doc.stubs.length >= acknowledged.get(port)!, `${name} holds every acknowledged stub`);
    }
  }
});

test.run();

/** `--front-door` at startup: the `:port` form, `/config` and the log, a busy port. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { freePort, http, startSvc } from '../../support/servers.js';
import { runSvc } from '../../support/run-svc.js';

const test = suite('front door: listening');
const tmp = tempDirForSuite(test, 'svc-front-door-listen-');

test('--front-door :port listens on every interface and serves the table; routes without it are only warned about', async () => {
  const [imposterPort, doorPort] = [await freePort(), await freePort()];
  const config = tmp.file(
    'colon.json',
    JSON.stringify({
      imposters: [{ port: imposterPort, protocol: 'http', stubs: [{ responses: [{ is: { body: 'routed' } }] }] }],
      routes: [{ id: 'all', target: { port: imposterPort } }],
    }),
  );
  const svc = await startSvc({
    args: ['--configfile', config, '--front-door', `:${doorPort}`, '--metrics-port', String(await freePort()), '--pidfile', join(tmp.path, 'colon.pid')],
  });
  try {
    assert.is((await http('GET', `http://127.0.0.1:${doorPort}/anything`)).body, 'routed');
    const settings = JSON.parse((await http('GET', `http://127.0.0.1:${svc.adminPort}/config`)).body);
    assert.is(settings.serveOptions.frontDoor, `0.0.0.0:${doorPort}`);
  } finally {
    await svc.stop();
  }
  const plain = await startSvc({ args: ['--configfile', config, '--metrics-port', String(await freePort()), '--pidfile', join(tmp.path, 'plain.pid')] });
  try {
    const settings = JSON.parse((await http('GET', `http://127.0.0.1:${plain.adminPort}/config`)).body);
    assert.is(settings.serveOptions.frontDoor, null);
    const logs = JSON.parse((await http('GET', `http://127.0.0.1:${plain.adminPort}/logs`)).body).logs;
    assert.ok(
      logs.some((entry: { message: string }) => /1 front-door route\(s\) loaded, but no --front-door listener serves them/.test(entry.message)),
      JSON.stringify(logs),
    );
  } finally {
    await plain.stop();
  }
});

test('a busy front-door port stops startup with a message', async () => {
  const doorPort = await freePort();
  const holder = await startSvc({ args: ['--metrics-port', String(await freePort()), '--pidfile', join(tmp.path, 'holder.pid')], adminPort: doorPort });
  try {
    const run = await runSvc([
      'start',
      '--port',
      '0',
      '--front-door',
      `127.0.0.1:${doorPort}`,
      '--metrics-port',
      String(await freePort()),
      '--pidfile',
      join(tmp.path, 'busy.pid'),
    ]);
    assert.is(run.status, 1);
    assert.match(run.stdout + run.stderr, new RegExp(`cannot start the front door on 127\\.0\\.0\\.1:${doorPort}: .*EADDRINUSE`));
  } finally {
    await holder.stop();
  }
});

test.run();

/**
 * `svc restart` keeps the server's log: a detached server writes to the default logfile `svc.log` (as
 * mountebank writes `mb.log`), and a second restart appends to it rather than losing or truncating it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, http } from '../../support/servers.js';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { processAlive } from '../../../app/index.js';
import { runSvc } from '../../support/run-svc.js';

const test = suite('cli: restart keeps the log (default svc.log)');
const tmp = tempDirForSuite(test, 'svc-restart-log-');

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, 'g'))?.length ?? 0;

test('restart without --logfile logs to ./svc.log; a second restart appends; stop logs its goodbye there', async () => {
  const [port, metrics, imposter] = [await freePort(), await freePort(), await freePort()];
  const startArgs = ['--port', String(port), '--pidfile', 'svc.pid', '--metrics-port', String(metrics)];
  const pidfile = join(tmp.path, 'svc.pid');
  const logfile = join(tmp.path, 'svc.log');
  try {
    const first = await runSvc(['restart', ...startArgs], { cwd: tmp.path });
    assert.is(first.status, 0, first.stderr);
    assert.ok(existsSync(logfile), 'svc.log written by the detached server');
    const created = await http('POST', `http://127.0.0.1:${port}/imposters`, { body: JSON.stringify({ protocol: 'http', port: imposter }) });
    assert.is(created.status, 201);
    assert.match(readFileSync(logfile, 'utf8'), `http:${imposter} Open for business`);

    const second = await runSvc(['restart', ...startArgs], { cwd: tmp.path });
    assert.is(second.status, 0, second.stderr);
    const log = readFileSync(logfile, 'utf8');
    assert.match(log, `http:${imposter} Open for business`, "the first server's lines are kept");
    assert.is(count(log, /now taking orders/), 2, log);

    const stop = await runSvc(['stop', '--pidfile', 'svc.pid'], { cwd: tmp.path });
    assert.is(stop.status, 0, stop.stderr);
    assert.match(readFileSync(logfile, 'utf8'), /Adios/);
  } finally {
    if (existsSync(pidfile)) {
      const pid = Number(readFileSync(pidfile, 'utf8'));
      if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
});

test.run();

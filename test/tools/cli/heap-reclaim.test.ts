import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { HeapReclaim } from '../../../app/index.js';
import { OPENING } from '../../support/h2-frames.js';
import { freePort, http, startSvc } from '../../support/servers.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('cli: svc start gives a burst memory back once quiet');
const temp = tempDirForSuite(test, 'svc-reclaim-');

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return Number(line?.[1] ?? 0) / 1024;
}

/** An HTTP/2 session that sends the preface and SETTINGS, half-closes 50 ms later and waits for the server's close. */
function halfClosedSession(port: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(OPENING);
      setTimeout(() => socket.end(), 50);
    });
    const limit = setTimeout(() => socket.destroy(), 10_000);
    socket.on('error', () => {});
    socket.resume();
    socket.once('close', () => {
      clearTimeout(limit);
      resolve();
    });
  });
}

const probe = new HeapReclaim();
const reclaims = probe.active;
probe.stop();

test(`after an HTTP/2 session flood the quiet server ${reclaims ? 'gives its grown heap back' : 'runs no reclaim (V8 < 12)'} (issue 23)`, async () => {
  const logFile = join(temp.path, 'svc.log');
  const svc = await startSvc({ args: ['--logfile', logFile, '--loglevel', 'info'] });
  try {
    const pid = svc.pid as number;
    const port = await freePort();
    const body = JSON.stringify({ port, protocol: 'http', stubs: [{ responses: [{ is: { body: 'ok' } }] }] });
    assert.is((await http('POST', `http://127.0.0.1:${svc.adminPort}/imposters`, { body })).status, 201);
    const baseline = rssMb(pid);
    let peak = baseline;
    const until = Date.now() + 8_000;
    while (Date.now() < until) {
      await Promise.all(Array.from({ length: 30 }, () => [halfClosedSession(port), halfClosedSession(svc.adminPort)]).flat());
      peak = Math.max(peak, rssMb(pid));
    }
    // Checked every second; the first quiet second after the burst collects. 10 s is far past that.
    let line: RegExpMatchArray | null = null;
    for (let waited = 0; waited < 10_000 && line === null; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      line = readFileSync(logFile, 'utf8').match(/quiet after a burst: RSS (\d+) -> (\d+) MB/);
    }
    const figures = `RSS baseline ${baseline.toFixed(0)}, peak ${peak.toFixed(0)}, now ${rssMb(pid).toFixed(0)} MB; log: ${line?.[0]}`;
    if (reclaims) {
      assert.ok(line, `the reclaim is logged at info (${figures})`);
      assert.ok(Number(line[2]) < Number(line[1]) - 20, `it gave memory back (${figures})`);
    } else {
      assert.is(line, null, `no reclaim where V8 cannot shrink this way (${figures})`);
    }
    assert.is((await http('GET', `http://127.0.0.1:${port}/`)).body, 'ok', 'still serving');
  } finally {
    await svc.stop();
  }
});

test.run();

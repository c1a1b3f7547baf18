/**
 * Logging a user can read: `--loglevel debug` logs each imposter request (method, path, matched stub
 * index, status, ms) and each admin call, as mountebank does; the default level prints no warning per
 * catch-all stub (the usual last stub) and no per-request line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http, startSvc, type RunningServer } from '../../support/servers.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('cli: request and admin-call logging');
const dir = tempDirForSuite(test, 'svc-logging-');

const imposter = (port: number) => ({
  protocol: 'http',
  port,
  stubs: [{ predicates: [{ equals: { path: '/a' } }], responses: [{ is: { statusCode: 201 } }] }, { responses: [{ is: { body: 'rest' } }] }],
});

async function serving(args: string[], work: (admin: string, port: number) => Promise<void>): Promise<void> {
  const server: RunningServer = await startSvc({ args: ['--metrics-port', String(await freePort()), ...args] });
  try {
    const port = await freePort();
    const admin = `http://127.0.0.1:${server.adminPort}`;
    const created = await http('POST', `${admin}/imposters`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(imposter(port)) });
    assert.is(created.status, 201, created.body);
    await work(admin, port);
  } finally {
    await server.stop();
  }
}

/** The log once it holds `line` (admin lines are written when the answer is flushed); a generous deadline, not a timing bound. */
async function logWith(file: string, line: RegExp): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const text = readFileSync(file, 'utf8');
    if (line.test(text) || Date.now() > deadline) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('--loglevel debug: one line per request with the matched stub, status and ms; one per admin call', async () => {
  const logfile = join(dir.path, 'debug.log');
  await serving(['--loglevel', 'debug', '--logfile', logfile], async (admin, port) => {
    assert.is((await http('GET', `http://127.0.0.1:${port}/a`)).status, 201);
    assert.is((await http('POST', `http://127.0.0.1:${port}/other?q=1`, { body: 'x' })).body, 'rest');
    await http('DELETE', `${admin}/imposters/${port}/stubs/1`);
    assert.is((await http('GET', `http://127.0.0.1:${port}/nothing`)).status, 200);
    // The last request's line: earlier lines are written before it.
    const log = await logWith(logfile, /GET \/nothing => /);
    assert.match(log, new RegExp(`debug: http:${port} GET /a => 201 \\(stub 0\\) in \\d+ ms`));
    assert.match(log, new RegExp(`debug: http:${port} POST /other => 200 \\(stub 1\\) in \\d+ ms`));
    assert.match(log, new RegExp(`debug: http:${port} GET /nothing => 200 \\(no stub matched\\) in \\d+ ms`));
    assert.match(log, /debug: admin POST \/imposters => 201 in \d+ ms/);
    assert.match(log, /debug: admin DELETE \/imposters\/\d+\/stubs\/1 => 200 in \d+ ms/);
  });
});

test('default level: no warning for a catch-all stub, no per-request line', async () => {
  const logfile = join(dir.path, 'info.log');
  await serving(['--logfile', logfile], async (_admin, port) => {
    await http('GET', `http://127.0.0.1:${port}/a`);
    const log = await logWith(logfile, /Open for business/);
    assert.match(log, /Open for business/);
    assert.not.match(log, /catch_all/);
    assert.not.match(log, /GET \/a =>/);
    assert.not.match(log, /^[^ ]+ warn:/m, log);
  });
});

test.run();

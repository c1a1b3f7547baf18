/** Route tables in config files: startup rejects a bad table, `--validate` reports it. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { freePort } from '../../support/servers.js';
import { runSvc } from '../../support/run-svc.js';

const test = suite('front door: config files');
const tmp = tempDirForSuite(test, 'svc-front-door-config-');

const badTable = [
  { id: 'dup', target: { port: 4545 } },
  { id: 'dup', match: { method: 'GET' }, target: { port: 4545 } },
  { id: 'strip', match: { host: '*.a.test' }, target: { port: 4545, strip_prefix: true } },
];

test('startup fails on an invalid table, naming the file and every offending route', async () => {
  const config = tmp.file('bad.json', JSON.stringify({ imposters: [{ port: await freePort(), protocol: 'http' }], routes: badTable }));
  const run = await runSvc(['start', '--port', '0', '--configfile', config, '--front-door', String(await freePort()), '--pidfile', join(tmp.path, 'bad.pid')]);
  assert.is(run.status, 1, run.stdout + run.stderr);
  const output = run.stdout + run.stderr;
  assert.match(output, /cannot start/);
  assert.ok(output.includes(`${config}: route "dup": duplicate id`), output);
  assert.ok(output.includes(`${config}: route "strip": 'target.strip_prefix' needs 'match.path_prefix'`), output);
});

test('a routes block on a single-imposter document is an error', async () => {
  const config = tmp.file('single.json', JSON.stringify({ port: await freePort(), protocol: 'http', routes: [] }));
  const run = await runSvc(['--validate', config]);
  assert.is(run.status, 1);
  assert.match(run.stderr, /'routes' block is only read from the \{"imposters": \[\.\.\.\], "routes": \.\.\.\} wrapper/);
});

test('--validate lists route problems with the imposter ones, and counts routes of a valid table', async () => {
  const bad = tmp.file('validate-bad.json', JSON.stringify({ imposters: [{ port: 4545, protocol: 'smtp' }], routes: badTable }));
  const good = tmp.file(
    'validate-good.json',
    JSON.stringify({
      imposters: [{ port: 4545, protocol: 'http' }],
      routes: { web: { match: { path_prefix: '/web' }, target: { port: 4545, strip_prefix: true } }, off: { enabled: false, target: { port: 1 } } },
    }),
  );
  const [notOk, ok] = await Promise.all([runSvc(['--validate', bad]), runSvc(['--validate', good])]);
  assert.is(notOk.status, 1);
  const lines = notOk.stderr.trim().split('\n');
  assert.is(lines.length, 3, notOk.stderr);
  assert.match(lines[0], /imposter on port 4545: .*smtp/);
  assert.ok(lines.includes(`${bad}: route "dup": duplicate id`), notOk.stderr);
  assert.ok(lines.includes(`${bad}: route "strip": 'target.strip_prefix' needs 'match.path_prefix'`), notOk.stderr);
  assert.is(ok.status, 0, ok.stderr);
  assert.is(ok.stdout.trim(), `${good}: valid, 1 imposter(s), 2 route(s)`);
});

test.run();

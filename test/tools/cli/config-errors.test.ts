/**
 * Config errors a user can act on: each names the file, the imposter's port and the JSON path of the
 * field at fault (`stubs[1].predicates[1]`), at startup and under `--validate`; a JSON syntax error
 * gives its line and column; the admin envelope carries the same `path`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { freePort, http, startSvc } from '../../support/servers.js';
import { runSvc } from '../../support/run-svc.js';

const test = suite('cli: config errors name file, port, JSON path, line and column');
const tmp = tempDirForSuite(test, 'svc-config-errors-');

const badImposter = {
  protocol: 'http',
  port: 4545,
  stubs: [
    { responses: [{ is: {} }] },
    { predicates: [{ equals: { path: '/' } }, { equalz: { path: '/' } }], responses: [{ is: {} }] },
    { responses: [{ is: {} }, { is: { statusCode: 'abc' } }] },
  ],
};

test('--validate and startup: file, imposter port and JSON path of each problem', async () => {
  const file = tmp.file('bad.json', JSON.stringify({ imposters: [badImposter] }, null, 2));
  const validate = await runSvc(['--validate', file]);
  assert.is(validate.status, 1);
  assert.match(validate.stderr, `${file}: imposter on port 4545: stubs[1].predicates[1]: bad data: missing predicate`);
  assert.match(validate.stderr, `${file}: imposter on port 4545: stubs[2].responses[1]: bad data: 'statusCode' must be a valid HTTP status code`);
  const start = await runSvc(['--configfile', file, '--port', String(await freePort()), '--nologfile', '--pidfile', join(tmp.path, 'bad.pid')]);
  assert.is(start.status, 1);
  assert.match(start.stderr, `${file}: imposter on port 4545: stubs[1].predicates[1]: missing predicate`);
});

test('a JSON syntax error gives line and column, at startup and under --validate', async () => {
  const file = tmp.file('syntax.json', '{"imposters": [\n  {"protocol": "http",\n   "port": 4545,,\n}]}');
  for (const args of [
    ['--validate', file],
    ['--configfile', file, '--port', String(await freePort()), '--nologfile', '--pidfile', join(tmp.path, 's.pid')],
  ]) {
    const run = await runSvc(args);
    assert.is(run.status, 1, args[0]);
    assert.match(run.stderr, `${file}: not valid JSON at line 3, column 17 (Expected double-quoted property name)`, args[0]);
  }
  const truncated = tmp.file('truncated.json', '{"imposters": [\n  {"protocol": "http"');
  assert.match((await runSvc(['--validate', truncated])).stderr, "not valid JSON at line 2, column 22 (Expected ',' or '}' after property value)");
});

test('skipped data-directory files are listed with the JSON path, or the line and column of a syntax error', async () => {
  tmp.file('data/4545.json', JSON.stringify(badImposter));
  tmp.file('data/4546.json', '{"protocol": "http",\n "port": 4546\n "stubs": []}');
  const logfile = join(tmp.path, 'datadir.log');
  const server = await startSvc({ args: ['--datadir', join(tmp.path, 'data'), '--logfile', logfile, '--metrics-port', String(await freePort())] });
  try {
    const log = readFileSync(logfile, 'utf8');
    assert.match(log, /4545\.json: stubs\[1\]\.predicates\[1\]: missing predicate/);
    assert.match(log, /4546\.json: not readable as JSON at line 3, column 2/);
  } finally {
    await server.stop();
  }
});

test('the admin envelope carries the JSON path of the field at fault', async () => {
  const server = await startSvc({ args: ['--metrics-port', String(await freePort())] });
  try {
    const admin = `http://127.0.0.1:${server.adminPort}`;
    const post = (path: string, body: unknown) =>
      http('POST', `${admin}${path}`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const created = await post('/imposters', { ...badImposter, port: await freePort() });
    assert.is(created.status, 400);
    const paths = (JSON.parse(created.body) as { errors: Array<{ path?: string }> }).errors.map((e) => e.path);
    assert.equal(paths, ['stubs[1].predicates[1]', 'stubs[2].responses[1]']);
    const port = await freePort();
    assert.is((await post('/imposters', { protocol: 'http', port })).status, 201);
    const added = await post(`/imposters/${port}/stubs`, { stub: { predicates: [{ equalz: {} }], responses: [{ is: {} }] } });
    assert.is(added.status, 400);
    assert.is((JSON.parse(added.body) as { errors: Array<{ path?: string }> }).errors[0]!.path, 'stub.predicates[0]');
  } finally {
    await server.stop();
  }
});

test.run();

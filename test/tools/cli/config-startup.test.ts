import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { freePort, http, startSvc } from '../../support/servers.js';
import { runSvc } from '../../support/run-svc.js';

const test = suite('cli: config files at startup, --validate, rcfile');
const tmp = tempDirForSuite(test, 'svc-startup-');
const file = (name: string, text: string): string => tmp.file(name, text);

test('a YAML config with nested include and stringify serves; rcfile and SVC_LOG apply under explicit flags', async () => {
  const [a, b, metrics] = [await freePort(), await freePort(), await freePort()];
  file('yaml/parts/body.json', '{"message": "<%- include(\'word.txt\') %>"}');
  file('yaml/parts/word.txt', 'hello yaml');
  file(
    'yaml/parts/imposter.ejs',
    `{ "port": ${b}, "protocol": "http", "stubs": [{ "responses": [{ "is": { "body": "<%- stringify(filename, 'body.json') %>" } }] }] }`,
  );
  const config = file(
    'yaml/imposters.yaml',
    [
      `- port: ${a}`,
      '  protocol: http',
      '  stubs:',
      '    - responses:',
      '        - inject: "function (config) { return { body: \'injected \' + config.request.path }; }"',
      '- <%- include parts/imposter.ejs %>',
      '',
    ].join('\n'),
  );
  const rc = file('svcrc.json', JSON.stringify({ port: 1, allowInjection: true, loglevel: 'debug', colour: 'blue' }));
  const svc = await startSvc({
    args: ['--rcfile', rc, '--configfile', config, '--metrics-port', String(metrics), '--pidfile', join(tmp.path, 'yaml.pid')],
    env: { SVC_LOG: 'warn' },
  });
  try {
    const base = `http://127.0.0.1:${svc.adminPort}`;
    assert.is((await http('GET', `${base}/imposters/${a}`)).status, 200, 'the scripted imposter was admitted');
    assert.equal(JSON.parse((await http('GET', `http://127.0.0.1:${b}/`)).body), { message: 'hello yaml' });
    const settings = JSON.parse((await http('GET', `${base}/config`)).body);
    assert.is(settings.options.port, svc.adminPort, 'the --port flag wins over the rcfile');
    assert.is(settings.options.allowInjection, true, 'allowInjection from the rcfile');
    assert.is(settings.serveOptions.config, rc);
    assert.is(settings.serveOptions.configFile, config);
    assert.is(settings.serveOptions.metricsPort, metrics);
    assert.type(settings.process.rss, 'number');
    assert.is(settings.process.cwd.length > 0, true);
    const logs = JSON.parse((await http('GET', `${base}/logs`)).body).logs;
    assert.ok(
      logs.some((l: any) => l.level === 'warn' && /unknown key 'colour'/.test(l.message)),
      'unknown rcfile key warned',
    );
    assert.not.ok(
      logs.some((l: any) => l.level === 'info' || l.level === 'debug'),
      'SVC_LOG=warn wins over the rcfile loglevel',
    );
  } finally {
    await svc.stop();
  }
});

test('startup fails naming the file and tag, or the port of a scripted imposter without --allowInjection', async () => {
  const port = await freePort();
  const tagged = file('tagged.json', `{ "imposters": [<%- include ok.json %>] }`);
  const inner = file('ok.json', `{ "port": ${port}, "protocol": "http", "name": "<%= name %>" }`);
  const scripted = file(
    'scripted.json',
    JSON.stringify({ imposters: [{ port, protocol: 'http', stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] }] }),
  );
  const [badTag, gated] = await Promise.all([
    runSvc(['--port', '0', '--pidfile', join(tmp.path, 'x.pid'), '--configfile', tagged]),
    runSvc(['--port', '0', '--pidfile', join(tmp.path, 'y.pid'), '--configfile', scripted]),
  ]);
  assert.is(badTag.status, 1);
  assert.ok(badTag.stderr.includes(inner), badTag.stderr);
  assert.ok(badTag.stderr.includes('<%= name %>'), badTag.stderr);
  assert.is(gated.status, 1);
  assert.match(gated.stderr, new RegExp(`imposter on port ${port}: stubs\\[0\\]: JavaScript injection is not allowed`));
});

test('--validate: exit 0 with a count for a good file, 1 with every problem for a bad one', async () => {
  const good = file('good.yaml', '- port: 4545\n  protocol: http\n- protocol: https\n');
  const scripted = file('inject.json', JSON.stringify({ port: 4546, protocol: 'http', stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] }));
  const bad = file(
    'bad.json',
    JSON.stringify({
      imposters: [
        { port: 4547, protocol: 'smtp' },
        { port: 4548, protocol: 'http', stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] },
        { port: 4549, protocol: 'http' },
        { port: 4549, protocol: 'http' },
      ],
    }),
  );
  const [ok, okScripted, notOk, gatedScripted, missing, badTemplate] = await Promise.all([
    runSvc(['--validate', good]),
    runSvc(['--validate', scripted, '--allowInjection']),
    runSvc(['--validate', bad]),
    runSvc(['--validate', scripted]),
    runSvc(['--validate', join(tmp.path, 'absent.json')]),
    runSvc(['--validate', file('tpl.json', '<% while (true) {} %>')]),
  ]);
  assert.is(ok.status, 0, ok.stderr);
  assert.is(ok.stdout.trim(), `${good}: valid, 2 imposter(s)`);
  assert.is(okScripted.status, 0, okScripted.stderr);
  assert.is(notOk.status, 1);
  const lines = notOk.stderr.trim().split('\n');
  assert.is(lines.length, 3, notOk.stderr);
  assert.match(lines[0], /imposter on port 4547: .*smtp/);
  assert.match(lines[1], /imposter on port 4548: stubs\[0\]: invalid injection: JavaScript injection is not allowed/);
  assert.match(lines[2], /duplicate port 4549/);
  assert.is(gatedScripted.status, 1);
  assert.is(missing.status, 1);
  assert.match(missing.stderr, /ENOENT/);
  assert.is(badTemplate.status, 1);
  assert.match(badTemplate.stderr, /unsupported template tag <% while \(true\) \{\} %>/);
});

test('--validate lists ignored configuration keys with their JSON path as warnings; the file stays valid', async () => {
  const typo = file('typo.json', JSON.stringify({ port: 4550, protocol: 'http', recordrequests: true, stubs: [{ respnses: [], responses: [{ is: {} }] }] }));
  const result = await runSvc(['--validate', typo]);
  assert.is(result.status, 0, result.stderr);
  const lines = result.stderr.trim().split('\n');
  assert.is(lines.length, 2, result.stderr);
  assert.match(lines[0], /imposter on port 4550: warning config_key_ignored: 'recordrequests' is not a known key/);
  assert.match(lines[1], /imposter on port 4550: warning config_key_ignored: 'stubs\[0\]\.respnses' is not a known key/);
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { freePort, http } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';
import { AbiRun, buildDir, lazyAbiProgram } from '../support/abi-program.js';

const temp = tempDirForSuite(test, 'svc-ffi-');
const abiProgram = lazyAbiProgram(temp);

/** A GET through an HTTP proxy (absolute-form request target). */
function viaProxy(proxyPort: number, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxyPort, path: url, headers: { Host: new URL(url).host }, agent: false }, (res) => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (chunk: string) => {
          body += chunk;
        })
        .on('end', () => resolve(body));
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`GET ${url} via proxy timed out`)));
    req.on('error', reject);
    req.end();
  });
}

test('every C ABI function, checked from outside at each pause', async () => {
  const [port, port2] = [await freePort(), await freePort()];
  const truststore = join(temp.path, 'truststore.p12');
  const run = new AbiRun(abiProgram(), ['all', String(port), String(port2), truststore]);
  try {
    assert.is(await run.next('abi_version'), '2');
    const info = await run.json('build_info');
    assert.equal(Object.keys(info), ['version', 'commit', 'builtAt', 'features']);
    assert.ok(info.features.includes('javascript'));
    assert.is(await run.next('last_error_initially'), 'NULL');
    assert.is(await run.next('create_imposter'), String(port));
    assert.match(await run.sentinel('create_imposter_bad_json'), /Unable to parse body as JSON/);
    assert.is(await run.next('last_error_after_success'), 'NULL', 'a successful call clears the last error');
    assert.match(await run.sentinel('create_imposter_duplicate'), new RegExp(`Port ${port} is already in use`));
    const auto = Number(await run.next('create_imposter_auto'));
    assert.ok(auto >= 49152, 'an imposter without port is auto-assigned');
    await run.pause('created');

    const hello = await http('GET', `http://127.0.0.1:${port}/hello`);
    assert.is(hello.body, 'world');
    // The C functions are not injection-gated (docs/c-abi.md): the inject stub was accepted and runs.
    assert.is((await http('GET', `http://127.0.0.1:${auto}/`)).body, 'injected');
    run.resume();

    const recorded = await run.json('recorded');
    assert.is(recorded.length, 1);
    assert.is(recorded[0].path, '/hello');
    assert.equal(await run.json('verify'), { matched: 1, total: 1 });
    assert.match(await run.sentinel('verify_bad_json'), /Unable to parse body as JSON/);
    assert.equal(await run.json('verify_inject'), { matched: 1, total: 1 }, 'inject predicates are not gated in svc_verify');
    assert.equal(await run.json('stub_warnings'), []);
    assert.is(await run.next('add_stub'), '0');
    assert.is(await run.next('add_stub_at_0'), '0');
    assert.match(await run.sentinel('add_stub_bad_index'), /'index' must be between 0/);
    const warnings = await run.json('stub_warnings_after_add');
    assert.equal(
      warnings.map((w: { warningType: string }) => w.warningType),
      ['catch_all'],
    );
    const appended = await run.json('get_stub_index');
    assert.equal(appended, { responses: [{ is: { statusCode: 404, body: 'fallback' } }] }, 'add_stub generates no id');
    assert.is((await run.json('get_stub_id')).id, 'hello');
    assert.ok(await run.sentinel('get_stub_out_of_range'));
    assert.match(await run.sentinel('get_stub_unknown_id'), /no stub with id 'nope'/);
    assert.match(await run.sentinel('get_stub_malformed_ref'), /ref_json must be/);
    assert.is(await run.next('update_stub'), '0');
    assert.equal((await run.json('get_stub_after_update')).responses, [{ is: { body: 'updated' } }]);
    const list = await run.json('list_imposters');
    assert.equal(
      list.imposters.map((i: { port: number }) => i.port),
      [port, auto].sort((a, b) => a - b),
    );
    assert.is(list.imposters.find((i: { port: number }) => i.port === port).numberOfRequests, 1);
    assert.not.ok('_links' in list.imposters[0]);
    const replayableList = await run.json('list_imposters_replayable');
    assert.ok(Array.isArray(replayableList.imposters[0].stubs));
    const detail = await run.json('get_imposter');
    assert.is(detail.stubs.length, 3);
    assert.is(detail.requests.length, 1);
    assert.is(detail.enabled, true);
    assert.ok(Array.isArray(detail._svc.warnings));
    const replayable = await run.json('get_imposter_replayable');
    assert.not.ok('requests' in replayable);
    assert.match(await run.sentinel('get_imposter_unknown'), /no imposter on port 1/);
    assert.is(await run.next('delete_stub'), '0');
    assert.ok(await run.sentinel('delete_stub_unknown'));
    await run.pause('stubs-edited');
    assert.is((await http('GET', `http://127.0.0.1:${port}/hello`)).body, 'updated');
    assert.is((await http('GET', `http://127.0.0.1:${port}/first`)).status, 404, 'the stub deleted by id is gone');
    run.resume();

    assert.is(await run.next('set_imposter_enabled_0'), '0');
    await run.pause('disabled');
    const disabled = await http('GET', `http://127.0.0.1:${port}/hello`);
    assert.equal([disabled.status, disabled.body], [200, ''], 'a disabled imposter answers its default response');
    run.resume();
    assert.is(await run.next('set_imposter_enabled_1'), '0');
    assert.is(await run.next('clear_recorded'), '0');
    assert.equal(await run.json('recorded_after_clear'), []);
    assert.is(await run.next('clear_proxy_recordings'), '0');
    assert.is(await run.next('replace_stubs'), '0');
    assert.match(await run.sentinel('replace_stubs_unknown_port'), /no imposter on port 1/);
    await run.pause('replaced');
    assert.is((await http('GET', `http://127.0.0.1:${port}/anything`)).body, 'replaced');
    run.resume();

    const report = await run.json('apply_config');
    assert.equal(report.created, [port2]);
    assert.equal(report.deleted, [auto], 'apply_config reconciles the whole set');
    assert.equal(report.failed, []);
    assert.ok(await run.sentinel('apply_config_bad'));
    const served = await run.json('serve_admin');
    assert.equal(Object.keys(served).sort(), ['adminPort', 'adminUrl', 'metricsPort']);
    assert.is(served.adminUrl, `http://127.0.0.1:${served.adminPort}`);
    assert.is(served.metricsPort, null);
    assert.match(await run.sentinel('serve_admin_again'), /already serving/);
    await run.pause('admin');
    const overHttp = JSON.parse((await http('GET', `${served.adminUrl}/imposters`)).body);
    assert.equal(
      overHttp.imposters.map((i: { port: number }) => i.port),
      [port, port2].sort((a, b) => a - b),
    );
    const third = await freePort();
    const created = await http('POST', `${served.adminUrl}/imposters`, { body: JSON.stringify({ port: third, protocol: 'http' }) });
    assert.is(created.status, 201);
    run.resume();
    const after = await run.json('list_after_http_create');
    assert.ok(
      after.imposters.some((i: { port: number }) => i.port === third),
      'an imposter created over HTTP is seen through the ABI',
    );

    assert.is(await run.next('flow_state_put'), '0');
    assert.match(await run.sentinel('flow_state_put_bad_json'), /Unable to parse body as JSON/);
    assert.equal(await run.json('flow_state_get'), { found: true, flowId: 'f1', key: 'k', value: { n: 1 } });
    assert.equal(await run.json('flow_state_get_other_flow'), { found: false, flowId: 'f2', key: 'k', value: null });
    assert.is(await run.next('flow_state_absent_last_error'), 'NULL', 'an absent key does not set the last error');
    assert.match(await run.sentinel('flow_state_get_unknown_port'), /no imposter on port 1/);
    assert.is(await run.next('flow_state_delete'), '0');
    assert.match(await run.sentinel('flow_state_delete_again'), /no flow state key 'k' in flow 'f1'/);
    assert.is((await run.json('flow_state_get_deleted')).found, false);

    assert.is(await run.next('add_scenario_stub'), '0');
    assert.equal(await run.json('scenarios'), { flowId: String(port), scenarios: [{ name: 'login', state: 'Started' }] });
    assert.is(await run.next('set_scenario_state'), '0');
    assert.equal((await run.json('scenarios_after_set')).scenarios, [{ name: 'login', state: 'LoggedIn' }]);
    assert.match(await run.sentinel('set_scenario_state_missing_state'), /state/);
    assert.is(await run.next('reset_scenarios'), '0');
    assert.equal((await run.json('scenarios_after_reset')).scenarios, [{ name: 'login', state: 'Started' }]);

    assert.is(await run.next('space_add_stub'), '0');
    assert.match(await run.sentinel('space_add_stub_envelope'), /bare stub/);
    const space = await run.json('space_list_stubs');
    assert.is(space.space, 'tenant-a');
    assert.equal(
      space.stubs.map((stub: { responses: unknown }) => stub.responses),
      [[{ is: { body: 'tenant' } }]],
    );
    assert.equal(await run.json('space_recorded'), []);
    assert.is(await run.next('space_delete'), '0');
    assert.equal((await run.json('space_list_after_delete')).stubs, []);

    assert.is(await run.next('stop_intercept_idle'), '0', 'stopping an intercept that is not running succeeds');
    assert.ok(await run.sentinel('intercept_list_rules_idle'));
    const intercept = await run.json('start_intercept');
    assert.ok(intercept.interceptPort > 0);
    assert.match(intercept.interceptUrl, /^http:\/\//);
    assert.ok(await run.sentinel('start_intercept_again'));
    assert.is(await run.next('intercept_add_rules'), '0');
    assert.ok(await run.sentinel('intercept_add_rules_bad'));
    const rules = await run.json('intercept_list_rules');
    assert.is(rules.length, 1);
    assert.is(await run.next('intercept_ca_pem'), 'PEM');
    assert.is(await run.next('intercept_export_truststore'), '0');
    assert.match(await run.sentinel('intercept_export_truststore_bad_format'), /pkcs12 or jks/);
    await run.pause('intercepting');
    assert.ok(statSync(truststore).size > 0, 'the truststore file was written');
    const overAdmin = JSON.parse((await http('GET', `${served.adminUrl}/intercept`)).body);
    assert.equal(overAdmin, { interceptPort: intercept.interceptPort, interceptUrl: intercept.interceptUrl }, 'the admin plane sees the C slot');
    assert.is(JSON.parse((await http('GET', `${served.adminUrl}/intercept/rules`)).body).length, 1);
    const proxied = await viaProxy(intercept.interceptPort, 'http://api.example.com/anything');
    assert.is(proxied, 'replaced', 'the intercept forwards api.example.com to the imposter');
    run.resume();
    assert.is(await run.next('intercept_clear_rules'), '0');
    assert.equal(await run.json('intercept_list_after_clear'), []);
    assert.is(await run.next('stop_intercept'), '0');
    assert.ok(await run.sentinel('intercept_ca_pem_stopped'));

    assert.is(await run.next('delete_imposter'), '0');
    assert.match(await run.sentinel('delete_imposter_again'), new RegExp(`no imposter on port ${port}`));
    assert.is(await run.next('delete_all'), '0');
    assert.equal(await run.json('list_after_delete_all'), { imposters: [] });
    await run.pause('deleted');
    const refused = await http('GET', `http://127.0.0.1:${port2}/`).catch((err: NodeJS.ErrnoException) => err.code);
    assert.is(refused, 'ECONNREFUSED', 'svc_delete_all unbinds every imposter');
    run.resume();

    assert.is(await run.next('null_handle_create'), '0');
    assert.is(await run.sentinel('null_handle_error'), 'null handle');
    assert.is(await run.sentinel('null_handle_delete_all'), 'null handle');
    assert.is(await run.next('stopped'), '0');
    assert.is(await run.finish(), 0);
    const adminGone = await http('GET', `${served.adminUrl}/imposters`).catch((err: NodeJS.ErrnoException) => err.code);
    assert.is(adminGone, 'ECONNREFUSED', 'svc_stop stops the admin plane');
  } finally {
    await run.kill();
  }
});

test('two threads share a handle; each keeps its own last error', async () => {
  const run = new AbiRun(abiProgram(), ['threads']);
  try {
    assert.is(await run.next('thread_good'), 'ok=200 errors_right=200');
    assert.is(await run.next('thread_failing'), 'ok=0 errors_right=200');
    assert.is(await run.next('stopped'), '0');
    assert.is(await run.finish(), 0);
  } finally {
    await run.kill();
  }
});

test('serve_admin: apiKey, metrics port, injection gating of configFile, inline config ungated', async () => {
  const scripted = temp.file(
    'scripted.json',
    JSON.stringify({
      imposters: [{ port: await freePort(), protocol: 'http', stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] }],
    }),
  );
  const gated = new AbiRun(abiProgram(), ['serve', JSON.stringify({ configFile: scripted })]);
  try {
    assert.match(await gated.sentinel('serve_admin'), /injection/i);
    assert.equal(await gated.json('list_imposters'), { imposters: [] }, 'a refused configFile applies nothing');
    await gated.pause('serving');
    gated.resume();
    assert.is(await gated.finish(), 0);
  } finally {
    await gated.kill();
  }

  const inlinePort = await freePort();
  const options = {
    port: await freePort(),
    metricsPort: await freePort(),
    apiKey: 'secret',
    config: { imposters: [{ port: inlinePort, protocol: 'http', stubs: [{ responses: [{ inject: "function () { return { body: 'inline' }; }" }] }] }] },
  };
  const serving = new AbiRun(abiProgram(), ['serve', JSON.stringify(options)]);
  try {
    const served = await serving.json('serve_admin');
    assert.equal(served, { adminPort: options.port, adminUrl: `http://127.0.0.1:${options.port}`, metricsPort: options.metricsPort });
    assert.is((await serving.json('list_imposters')).imposters[0].port, inlinePort);
    await serving.pause('serving');
    assert.is((await http('GET', `${served.adminUrl}/imposters`)).status, 401);
    assert.is((await http('GET', `${served.adminUrl}/imposters`, { headers: { Authorization: 'secret' } })).status, 200);
    // The admin plane stays gated: allowInjection was not given.
    const refused = await http('POST', `${served.adminUrl}/imposters`, {
      headers: { Authorization: 'secret' },
      body: JSON.stringify({ protocol: 'http', stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] }),
    });
    assert.is(refused.status, 400);
    assert.is((await http('GET', `http://127.0.0.1:${inlinePort}/`)).body, 'inline');
    const metrics = await http('GET', `http://127.0.0.1:${options.metricsPort}/metrics`);
    assert.is(metrics.status, 200);
    serving.resume();
    assert.is(await serving.finish(), 0);
  } finally {
    await serving.kill();
  }
});

test('serve_admin on a busy port is NULL and applies nothing', async () => {
  const busy = createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => busy.listen(port, '127.0.0.1', resolve));
  const options = { port, config: { imposters: [{ port: await freePort(), protocol: 'http' }] } };
  const run = new AbiRun(abiProgram(), ['serve', JSON.stringify(options)]);
  try {
    assert.match(await run.sentinel('serve_admin'), /EADDRINUSE/);
    assert.equal(await run.json('list_imposters'), { imposters: [] });
    await run.pause('serving');
    run.resume();
    assert.is(await run.finish(), 0);
  } finally {
    await run.kill();
    await new Promise((resolve) => busy.close(resolve));
  }
});

test('the build leaves the release artifact, its sha256 and ffi-manifest.json (docs/c-abi.md)', () => {
  abiProgram();
  const manifest = JSON.parse(readFileSync(join(buildDir, 'ffi-manifest.json'), 'utf8'));
  assert.is(manifest.abi, 'v2');
  assert.is(manifest.version, JSON.parse(readFileSync(join(buildDir, '..', '..', 'package.json'), 'utf8')).version);
  assert.is(manifest.artifacts.length, 1);
  const [artifact] = manifest.artifacts;
  assert.match(artifact.file, /^libsvc_ffi-[a-z0-9]+-[a-z0-9_]+\.(so|dylib|dll)$/);
  const digest = createHash('sha256')
    .update(readFileSync(join(buildDir, artifact.file)))
    .digest('hex');
  assert.is(artifact.sha256, digest);
  assert.is(readFileSync(join(buildDir, `${artifact.file}.sha256`), 'utf8'), `${digest}  ${artifact.file}\n`);
  assert.is(artifact.url, `./${artifact.file}`);
});

test.run();

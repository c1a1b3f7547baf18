/** serveAdmin (what svc_serve_admin runs, docs/c-abi.md): the admin plane over a caller's manager. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseServeAdminOptions, serveAdmin } from '../../app/index.js';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { isSvcError } from '../../engine/model/index.js';
import { freePort, http } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';

const test = suite('serveAdmin');
const dir = tempDirForSuite(test, 'svc-serve-admin-');
const log = createLogger({ level: 'error', quiet: true });
let manager: ImposterManager;

test.before.each(() => {
  manager = new ImposterManager({ allowInjection: false, log });
});

test.after.each(async () => {
  await manager.close();
});

test('inline config is applied and served, with the metrics server on an OS-assigned port', async () => {
  const port = await freePort();
  const options = parseServeAdminOptions({
    metricsPort: 0,
    config: { imposters: [{ protocol: 'http', port, stubs: [{ responses: [{ is: { body: 'inline' } }] }] }] },
  });
  const served = await serveAdmin(manager, options, { version: 'test', log });
  try {
    assert.match(served.adminUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(served.adminPort > 0);
    assert.ok(typeof served.metricsPort === 'number' && served.metricsPort > 0);
    const list = JSON.parse((await http('GET', `${served.adminUrl}/imposters`)).body);
    assert.equal(
      list.imposters.map((i: { port: number }) => i.port),
      [port],
    );
    assert.is((await http('GET', `http://127.0.0.1:${port}/`)).body, 'inline');
    assert.is((await http('GET', `http://127.0.0.1:${served.metricsPort}/metrics`)).status, 200);
    const config = JSON.parse((await http('GET', `${served.adminUrl}/config`)).body);
    assert.is(config.options.port, served.adminPort, '/config reports the bound port');
  } finally {
    await served.close();
  }
});

test('apiKey gates the admin routes; metricsPort null without a metrics port', async () => {
  const served = await serveAdmin(manager, parseServeAdminOptions({ apiKey: 'secret' }), { version: 'test', log });
  try {
    assert.is(served.metricsPort, null);
    assert.is((await http('GET', `${served.adminUrl}/imposters`)).status, 401);
    assert.is((await http('GET', `${served.adminUrl}/imposters`, { headers: { authorization: 'secret' } })).status, 200);
  } finally {
    await served.close();
  }
});

test('a scripted configFile without allowInjection fails and leaves nothing bound or applied', async () => {
  const port = await freePort();
  const adminPort = await freePort();
  const file = dir.file(
    'scripted.json',
    JSON.stringify({ imposters: [{ protocol: 'http', port, stubs: [{ responses: [{ inject: 'function () { return {}; }' }] }] }] }),
  );
  const failure = await serveAdmin(manager, parseServeAdminOptions({ port: adminPort, configFile: file }), { version: 'test', log }).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(isSvcError(failure), String(failure));
  assert.is(manager.list().length, 0);
  const again = await serveAdmin(manager, parseServeAdminOptions({ port: adminPort }), { version: 'test', log });
  await again.close();
});

test('options are validated at the edge', () => {
  const refused = (source: unknown) => {
    try {
      parseServeAdminOptions(source);
    } catch (err) {
      return isSvcError(err) ? err.status : -1;
    }
    return 0;
  };
  assert.is(refused({ prot: 1 }), 400);
  assert.is(refused({ port: 70000 }), 400);
  assert.is(refused({ apiKey: ' ' }), 400);
  assert.is(refused({ configFile: 'a.json', config: { imposters: [] } }), 400);
  assert.is(refused({ allowInjection: 'yes' }), 400);
  assert.equal(parseServeAdminOptions(null), {
    host: '127.0.0.1',
    port: 0,
    apiKey: undefined,
    metricsPort: undefined,
    configFile: undefined,
    config: undefined,
    allowInjection: false,
  });
});

test.run();

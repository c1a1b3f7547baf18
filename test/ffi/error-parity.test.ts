/**
 * One check, one answer (issue 12 scope 3, docs/c-abi.md rule 5): the same bad body gives the same §7
 * error through the admin HTTP plane, the C ABI (whose last error is the envelope's messages) and the
 * embedding API (the manager's SvcError), because the check lives once, in the manager.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { isSvcError, type ErrorEntry } from '../../engine/model/index.js';
import { adminCaller } from '../support/in-process.js';
import { freePort } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';
import { AbiRun, lazyAbiProgram } from '../support/abi-program.js';

const temp = tempDirForSuite(test, 'svc-ffi-parity-');
const abiProgram = lazyAbiProgram(temp);

/** The error entries a manager call throws. */
async function embeddedError(call: () => Promise<unknown>): Promise<{ status: number; errors: ErrorEntry[] }> {
  try {
    await call();
  } catch (err) {
    if (isSvcError(err)) return { status: err.status, errors: err.entries };
    throw err;
  }
  throw new Error('the manager call should have failed');
}

test('PUT /imposters without imposters, PUT stubs with non-array stubs, POST stubs without stub: same error on every surface', async () => {
  const port = await freePort();
  const run = new AbiRun(abiProgram(), ['errors', String(port)]);
  const manager = new ImposterManager({ allowInjection: false, log: createLogger({ level: 'error', quiet: true }) });
  try {
    const served = await run.json('serve_admin');
    assert.is(await run.next('create_imposter'), String(port));
    const abi = {
      config: await run.sentinel('apply_config_without_imposters'),
      stubs: await run.sentinel('replace_stubs_not_an_array'),
      stub: await run.sentinel('add_stub_without_stub'),
    };
    await run.pause('compare');

    // The admin plane the C handle serves: the same manager the C functions just called.
    const admin = adminCaller(served.adminPort);
    const http = {
      config: await admin('PUT', '/imposters', { stubs: [] }),
      stubs: await admin('PUT', `/imposters/${port}/stubs`, { stubs: { responses: [] } }),
      stub: await admin('POST', `/imposters/${port}/stubs`, {}),
    };
    const embeddedPort = (await manager.createImposter({ port: await freePort(), protocol: 'http' })).port;
    const embedded = {
      config: await embeddedError(() => manager.applyConfig({ stubs: [] })),
      stubs: await embeddedError(() => manager.replaceStubs(embeddedPort, { stubs: { responses: [] } })),
      stub: await embeddedError(() => manager.addStub(embeddedPort, undefined)),
    };

    const expected = {
      config: "'imposters' is a required field",
      stubs: "'stubs' must be an array",
      stub: "must contain 'stub' field",
    };
    for (const key of ['config', 'stubs', 'stub'] as const) {
      const envelope = { errors: [{ code: 'bad data', type: 'bad_data', message: expected[key] }] };
      assert.is(http[key].status, 400, key);
      assert.equal(http[key].json, envelope, `${key}: admin HTTP`);
      assert.equal({ errors: embedded[key].errors }, envelope, `${key}: embedding API`);
      assert.is(embedded[key].status, 400, key);
      assert.is(abi[key], http[key].json.errors.map((entry: ErrorEntry) => entry.message).join('; '), `${key}: C ABI last error`);
    }
    run.resume();
    assert.is(await run.next('stopped'), '0');
    assert.is(await run.finish(), 0);
  } finally {
    await manager.close();
    await run.kill();
  }
});

test.run();

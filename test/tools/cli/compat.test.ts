/**
 * `--compat mountebank` / `SVC_COMPAT=mountebank` reach the server from the command line and the
 * environment; the default stays the spec's. (The differential suite, test/differential/admin-compat,
 * compares the mode itself with mountebank 2.9.1.)
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCliOptions } from '../../../tools/cli/options/index.js';
import { UsageError } from '../../../app/index.js';
import { http, startSvc, type RunningServer } from '../../support/servers.js';

const test = suite('cli: --compat mountebank');

async function withSvc(options: { args?: string[]; env?: NodeJS.ProcessEnv }, work: (admin: string) => Promise<void>): Promise<void> {
  const server: RunningServer = await startSvc(options);
  try {
    await work(`http://127.0.0.1:${server.adminPort}`);
  } finally {
    await server.stop();
  }
}

test('the flag and the variable parse; any other mode is a usage error', () => {
  assert.is(parseCliOptions(['--compat', 'mountebank'], {}).compat, 'mountebank');
  assert.is(parseCliOptions([], { SVC_COMPAT: 'mountebank' }).compat, 'mountebank');
  assert.is(parseCliOptions([], {}).compat, undefined);
  assert.throws(
    () => parseCliOptions(['--compat', 'wiremock'], {}),
    (err: unknown) => err instanceof UsageError && /mountebank/.test((err as Error).message),
  );
});

test('SVC_COMPAT=mountebank: deleting a missing imposter answers 200 {}, the default answers 404', async () => {
  await withSvc({ env: { SVC_COMPAT: 'mountebank' } }, async (admin) => {
    const res = await http('DELETE', `${admin}/imposters/1`);
    assert.is(res.status, 200);
    assert.equal(JSON.parse(res.body), {});
  });
  await withSvc({}, async (admin) => {
    const res = await http('DELETE', `${admin}/imposters/1`);
    assert.is(res.status, 404);
    assert.is((JSON.parse(res.body) as { errors: Array<{ type: string }> }).errors[0]!.type, 'no_such_resource');
  });
});

test('--compat mountebank: no generated stub ids, no svc keys; explicit ids stay addressable', async () => {
  await withSvc({ args: ['--compat', 'mountebank'] }, async (admin) => {
    const created = await http('POST', `${admin}/imposters`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ protocol: 'http', stubs: [{ responses: [{ is: {} }] }, { id: 'mine', responses: [{ is: {} }] }] }),
    });
    assert.is(created.status, 201, created.body);
    const imposter = JSON.parse(created.body) as Record<string, unknown> & { port: number; stubs: Array<Record<string, unknown>> };
    assert.is(imposter.stubs[0]!.id, undefined);
    for (const key of ['_svc', 'stubCount', 'enabled']) assert.not.ok(key in imposter, key);
    const byId = await http('GET', `${admin}/imposters/${imposter.port}/stubs/by-id/mine`);
    assert.is(byId.status, 200);
    await http('DELETE', `${admin}/imposters`);
  });
});

test.run();

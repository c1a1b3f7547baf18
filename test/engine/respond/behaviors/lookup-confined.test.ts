/**
 * Issue 10 item 12: `lookup` reads a CSV from any path, as in mountebank, unless `--scripts-dir` is
 * given: then, like `file:` scripts, a CSV path escaping that directory (also through a symbolic link)
 * is a 400 at create time, on every admin route that takes stubs.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { call, startInProcess, type InProcessSvc } from '../../../support/in-process.js';
import { freePort } from '../../../support/servers.js';
import { tempDirForSuite } from '../../../support/temp-dir.js';

const test = suite('reliability: lookup CSV confined under --scripts-dir');
const tmp = tempDirForSuite(test, 'svc-lookup-');
let confined: InProcessSvc;
let open: InProcessSvc;
let scripts: string;
let outside: string;

test.before(async () => {
  scripts = join(tmp.path, 'scripts');
  mkdirSync(scripts);
  tmp.file('scripts/people.csv', 'id,name\n1,Ann\n');
  outside = tmp.file('secret.csv', 'id,name\n1,Secret\n');
  symlinkSync(outside, join(scripts, 'link.csv'));
  confined = await startInProcess({ scriptsDir: scripts });
  open = await startInProcess();
});
test.after(async () => {
  await confined.stop();
  await open.stop();
});

const lookupStub = (path: string) => ({
  predicates: [{ startsWith: { path: '/' } }],
  responses: [
    {
      is: { body: 'name=${row}["name"]' },
      _behaviors: {
        lookup: { key: { from: 'path', using: { method: 'regex', selector: '\\d+' } }, fromDataSource: { csv: { path, keyColumn: 'id' } }, into: '${row}' },
      },
    },
  ],
});

async function create(svc: InProcessSvc, path: string) {
  return svc.admin('POST', '/imposters', { port: await freePort(), protocol: 'http', stubs: [lookupStub(path)] });
}

function assertNamesCsvPath(res: { status: number; json: any }): void {
  assert.is(res.status, 400, JSON.stringify(res.json));
  assert.ok(
    res.json.errors.some((e: { message: string }) => e.message.includes('"fromDataSource.csv.path"') && e.message.includes('scripts directory')),
    JSON.stringify(res.json),
  );
}

test('a CSV under --scripts-dir is read', async () => {
  const res = await create(confined, join(scripts, 'people.csv'));
  assert.is(res.status, 201, JSON.stringify(res.json));
  assert.is((await call(res.json.port, 'GET', '/1')).body, 'name=Ann');
  await confined.admin('DELETE', `/imposters/${res.json.port}`);
});

test('an absolute path, a ../ path and a symbolic link out of --scripts-dir are 400s', async () => {
  assertNamesCsvPath(await create(confined, '/etc/passwd'));
  assertNamesCsvPath(await create(confined, outside));
  assertNamesCsvPath(await create(confined, join(scripts, '..', 'secret.csv')));
  assertNamesCsvPath(await create(confined, join(scripts, 'link.csv')));
  assert.is((await confined.admin('GET', '/imposters')).json.imposters.length, 0);
});

test('stub routes are confined too', async () => {
  const port = await confined.createImposter({});
  assertNamesCsvPath(await confined.admin('PUT', `/imposters/${port}/stubs`, { stubs: [lookupStub(outside)] }));
  assertNamesCsvPath(await confined.admin('POST', `/imposters/${port}/stubs`, { stub: lookupStub(outside) }));
  assert.is((await confined.admin('GET', `/imposters/${port}`)).json.stubs.length, 0);
  await confined.admin('DELETE', `/imposters/${port}`);
});

test('without --scripts-dir any path is read, as in mountebank', async () => {
  const res = await create(open, outside);
  assert.is(res.status, 201, JSON.stringify(res.json));
  assert.is((await call(res.json.port, 'GET', '/1')).body, 'name=Secret');
  await open.admin('DELETE', `/imposters/${res.json.port}`);
});

test.run();

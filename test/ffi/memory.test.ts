/** libsvc_ffi under valgrind memcheck: no invalid access, nothing leaked (thread-local errors included). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort, repoRoot } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';
import { lazyAbiProgram, sourceHostEnv } from '../support/abi-program.js';

const temp = tempDirForSuite(test, 'svc-ffi-memory-');
const abiProgram = lazyAbiProgram(temp);

/** Runs the C test program under memcheck, answering every pause at once; returns valgrind's report. */
function memcheck(args: string[]): string {
  const probe = spawnSync('valgrind', ['--version']);
  if (probe.error) throw new Error('the memory check needs valgrind: install valgrind (e.g. apt-get install valgrind) and run again');
  const result = spawnSync('valgrind', ['--leak-check=full', '--errors-for-leak-kinds=definite,indirect', '--error-exitcode=9', abiProgram(), ...args], {
    cwd: repoRoot,
    env: sourceHostEnv(),
    input: '\n'.repeat(16),
    encoding: 'utf8',
    timeout: 120000,
  });
  assert.is(result.status, 0, `valgrind found problems:\n${result.stderr}`);
  return result.stderr;
}

test('two threads, failing and succeeding calls: every allocation freed', () => {
  assert.match(memcheck(['threads']), /All heap blocks were freed/);
});

test('every function once (results and sentinels): no invalid access, no leak', async () => {
  const report = memcheck(['all', String(await freePort()), String(await freePort()), join(temp.path, 'trust.p12')]);
  assert.match(report, /ERROR SUMMARY: 0 errors/);
  assert.not.match(report, /definitely lost: [1-9]/);
});

test.run();

/**
 * ffi/build/ copied anywhere works: the library starts the self-contained engine bundle next to it
 * (svc-engine.mjs), with no checkout, dist/ or node_modules around it, and the release manifest lists it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { repoRoot } from '../helpers/servers.js';
import { tempDirForSuite } from '../helpers/temp-dir.js';
import { AbiRun, buildDir } from './abi-program.js';

const temp = tempDirForSuite(test, 'svc-ffi-copy-');

/** ffi/build.mjs run (it bundles from dist/, which npm test builds first), then its output copied away. */
function copiedLibrary(): { lib: string; program: string } {
  execFileSync(process.execPath, [join(repoRoot, 'ffi', 'build.mjs')], { stdio: 'ignore' });
  const lib = join(temp.path, 'elsewhere', 'lib');
  mkdirSync(lib, { recursive: true });
  for (const file of ['libsvc_ffi.so', 'svc-engine.mjs']) copyFileSync(join(buildDir, file), join(lib, file));
  const program = join(temp.path, 'abi');
  execFileSync('gcc', [
    '-std=c11', '-Wall', '-Wextra', '-Werror', '-pthread', '-o', program, join(repoRoot, 'test', 'ffi', 'abi.c'),
    '-I', join(repoRoot, 'ffi', 'include'), '-L', lib, '-lsvc_ffi', `-Wl,-rpath,${lib}`,
  ], { stdio: 'inherit' });
  return { lib, program };
}

test('a copied ffi/build/ serves svc_start from the bundle beside the library', async () => {
  const { lib, program } = copiedLibrary();
  const env: NodeJS.ProcessEnv = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: process.env.HOME };
  const run = new AbiRun(program, ['threads'], env);
  try {
    assert.is(await run.next('thread_good', 60_000), 'ok=200 errors_right=200');
    assert.is(await run.next('thread_failing'), 'ok=0 errors_right=200');
    assert.is(await run.finish(), 0);
  } finally {
    await run.kill();
  }
  assert.ok(lib.startsWith(temp.path), 'the library ran from the copy');
});

test('the release manifest lists the engine bundle with its digest', () => {
  const manifest = JSON.parse(readFileSync(join(buildDir, 'ffi-manifest.json'), 'utf8')) as { engine?: { file: string; sha256: string } };
  assert.is(manifest.engine?.file, 'svc-engine.mjs');
  const digest = createHash('sha256').update(readFileSync(join(buildDir, 'svc-engine.mjs'))).digest('hex');
  assert.is(manifest.engine?.sha256, digest);
});

test.run();

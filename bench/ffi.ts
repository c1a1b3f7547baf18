/**
 * C ABI round trip (docs/c-abi.md): a C program calls svc_get_imposter (JSON reply, ~400 bytes) and
 * svc_set_imposter_enabled (int reply) N times on one handle, each a synchronous msgpack frame to the
 * engine host and back. Needs gcc and a build (`npm run build`, it uses dist/ffi/host).
 * Run: `node --import tsx bench/ffi.ts`   Env: BENCH_CALLS (default 10000).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/support/servers.js';
import { envInteger } from './env.js';

const calls = envInteger('BENCH_CALLS', 10000);
const build = join(repoRoot, 'ffi', 'build');
const dir = mkdtempSync(join(tmpdir(), 'svc-ffi-bench-'));
try {
  execFileSync(process.execPath, [join(repoRoot, 'ffi', 'build.mjs')], { stdio: 'inherit' });
  const program = join(dir, 'ffi-roundtrip');
  execFileSync(
    'gcc',
    ['-O2', '-o', program, join(repoRoot, 'bench', 'ffi-roundtrip.c'), '-I', join(repoRoot, 'ffi', 'include'), '-L', build, '-lsvc_ffi', `-Wl,-rpath,${build}`],
    { stdio: 'inherit' },
  );
  execFileSync(program, [String(calls)], { stdio: 'inherit' });
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Builds native/build/fd_dup.node (the per-core runtime's dup(fd)) with the machine's gcc against
// node's own headers. Without gcc (or off Linux) it explains and exits 0: only `--runtime per-core` needs it.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const include = join(dirname(process.execPath), '..', 'include', 'node');

if (process.platform !== 'linux' && process.platform !== 'darwin') {
  console.warn(`native/build.mjs: fd_dup builds on Linux and macOS only, not on ${process.platform}; skipped (--runtime per-core unavailable)`);
  process.exit(0);
}
try {
  execFileSync('gcc', ['--version'], { stdio: 'ignore' });
} catch {
  console.warn('native/build.mjs: gcc not found, fd_dup not built (install gcc, then run node native/build.mjs); --runtime per-core needs it');
  process.exit(0);
}
mkdirSync(join(here, 'build'), { recursive: true });
const flags = ['-shared', '-fPIC', '-O2', '-Wall', '-Wextra', '-I', include, '-o', join(here, 'build', 'fd_dup.node'), join(here, 'fd-dup.c')];
if (process.platform === 'darwin') flags.push('-undefined', 'dynamic_lookup');
execFileSync('gcc', flags, { stdio: 'inherit' });

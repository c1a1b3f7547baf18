/**
 * The Node arguments that run the `svc` CLI in a child process: the compiled build (dist/tools/svc.js) when every
 * source file has a compiled file at least as new as it, else the sources through tsx. `npm test` compiles before
 * it runs the suite, and the compiled CLI starts a server in about a third of the time (tsx transforms every module
 * of the server and again in each of its worker threads), which is much of the suite's time; a test run by hand
 * right after an edit, before compiling, still runs the sources it tests.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The folders tsconfig.json compiles into dist/. */
const SOURCE_ROOTS = ['app', 'engine', 'admin', 'ffi', 'tools'];

function sourcesOf(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'build' && entry.name !== 'node_modules') found.push(...sourcesOf(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

function buildIsCurrent(): boolean {
  for (const source of SOURCE_ROOTS.flatMap((dir) => sourcesOf(join(root, dir)))) {
    const compiled = join(root, 'dist', relative(root, source)).replace(/\.ts$/, '.js');
    if (!existsSync(compiled) || statSync(compiled).mtimeMs < statSync(source).mtimeMs) return false;
  }
  return true;
}

/** `--import` by absolute URL so a working directory outside the repository still finds tsx. */
export const svcCli: readonly string[] = buildIsCurrent()
  ? [join(root, 'dist/tools/svc.js')]
  : ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'tools/svc.ts')];

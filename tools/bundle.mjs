// Bundles the built CLI (dist/tools/svc.js, from `tsc -p tsconfig.json`) into dist/tools/bin/svc.mjs, the
// package's `bin`: one file and a few chunks load in a fraction of the time of ~250 separate ES modules.
// Each dynamic import() stays a chunk of its own, so what the sources load on first use still does.
// npm packages stay external, loaded from node_modules as before (and only where the sources load them).
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, 'dist');
const outdir = join(dist, 'tools', 'bin');
const entry = join(dist, 'tools', 'svc.js');

// A fresh folder: chunk names carry content hashes, and stale ones must not pile up or be packed.
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { svc: entry },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  plugins: [
    {
      name: 'svc-module-urls',
      setup(context) {
        // A module's import.meta.url stays the URL of its file in dist/, which still ships beside the bundle:
        // the version's package.json, the dashboard's static files, createRequire of lazily loaded packages
        // and script worker entries (dist/engine/script/*/worker.js) resolve exactly as unbundled.
        context.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, ({ path }) => {
          const url = JSON.stringify(relative(outdir, path).split('\\').join('/'));
          const text = readFileSync(path, 'utf8').replace(/\bimport\.meta\.url\b/g, `new URL(${url}, import.meta.url).href`);
          return { contents: text, loader: 'js' };
        });
      },
    },
  ],
});
console.log('tools/bundle.mjs: bundled dist/tools/bin/svc.mjs');

// Builds libsvc_ffi with the machine's gcc (docs/c-abi.md): ffi/build/libsvc_ffi.so for the repository's
// own use, and the release artifact libsvc_ffi-<classifier>.<ext> with its .sha256 and ffi-manifest.json.
// Without gcc (or off Linux) it explains and exits 0, so `npm install` still works; the C ABI tests then fail saying so.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ffi = dirname(fileURLToPath(import.meta.url));
const out = join(ffi, 'build');
const { version } = JSON.parse(readFileSync(join(ffi, '..', 'package.json'), 'utf8'));

const ARCH = { x64: 'x86_64', arm64: 'aarch64', ia32: 'x86', arm: 'armv7' };
const classifier = `${process.platform}-${ARCH[process.arch] ?? process.arch}`;
const ext = 'so';

/** Worker thread entries (engine/threads/spawn.ts) under dist/, each bundled as svc-engine/<entry>.mjs. */
const WORKERS = ['engine/script/js/worker', 'engine/script/svc/worker'];
/** Where the bundled modules' import.meta.url point: a worker sits beside its spawner's path there. */
const MODULE_ROOT = 'svc-engine';
/**
 * Packages whose wasm ships beside the bundle that loads them: the QuickJS variant engine/script/js/sandbox.ts
 * runs (RELEASE_SYNC). quickjs-emscripten's index brings the other variants into the bundle too, never loaded.
 */
const WASM_PACKAGES = ['@jitl/quickjs-wasmfile-release-sync'];

function hasGcc() {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// The library speaks Linux (MSG_NOSIGNAL, SOCK_CLOEXEC, GNU ld version scripts); elsewhere npm install goes on without it.
if (process.platform !== 'linux') {
  console.warn(`ffi/build.mjs: libsvc_ffi builds on Linux only, not on ${process.platform}; skipped`);
  process.exit(0);
}

if (!hasGcc()) {
  console.warn('ffi/build.mjs: gcc not found, libsvc_ffi not built (install gcc, e.g. apt-get install gcc, then run node ffi/build.mjs)');
  process.exit(0);
}

// commit and builtAt stay null unless the release build stamps them (docs/c-abi.md).
const buildInfo = {
  version,
  commit: process.env.SVC_BUILD_COMMIT || null,
  builtAt: process.env.SVC_BUILD_TIME || null,
  features: ['redis-backend', 'javascript', 'rhai'],
};
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'build_info.h'), `#define SVC_BUILD_INFO ${JSON.stringify(JSON.stringify(buildInfo))}\n`);

const library = join(out, `libsvc_ffi.${ext}`);
execFileSync(
  'gcc',
  [
    '-std=c11',
    '-O2',
    '-fPIC',
    '-shared',
    '-pthread',
    '-Wall',
    '-Wextra',
    '-I',
    join(ffi, 'include'),
    '-I',
    out,
    `-Wl,--version-script=${join(ffi, 'src', 'exports.map')}`,
    '-o',
    library,
    join(ffi, 'src', 'svc.c'),
    join(ffi, 'src', 'host.c'),
    join(ffi, 'src', 'msgpack.c'),
    '-ldl',
  ],
  { stdio: 'inherit' },
);

const file = `libsvc_ffi-${classifier}.${ext}`;
// Copied then renamed: a program that has the previous artifact mapped keeps its old inode intact.
copyFileSync(library, join(out, `${file}.tmp`));
renameSync(join(out, `${file}.tmp`), join(out, file));
const sha256 = createHash('sha256')
  .update(readFileSync(join(out, file)))
  .digest('hex');
writeFileSync(join(out, `${file}.sha256`), `${sha256}  ${file}\n`);
const engine = await bundleEngine();
const manifest = { version, abi: 'v2', artifacts: [{ platform: classifier, file, sha256, url: `./${file}` }], ...(engine ? { engine } : {}) };
writeFileSync(join(out, 'ffi-manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`ffi/build.mjs: built ffi/build/${file}`);

/**
 * The engine host as one self-contained file next to the library (ffi/build/svc-engine.mjs), and each
 * worker thread it spawns as one file under ffi/build/svc-engine/ with the wasm it loads: a copied
 * ffi/build/ starts it with only node on PATH, no node_modules. Bundled from the build (dist/), so it
 * needs `npx tsc -p tsconfig.json` first; without it the library still serves from the checkout.
 * Returns the manifest's `engine` entry: the bundle, and every file a copy needs with its sha256.
 */
async function bundleEngine() {
  const dist = join(ffi, '..', 'dist');
  if (!existsSync(join(dist, 'ffi', 'host', 'main.js'))) {
    console.warn('ffi/build.mjs: dist/ffi/host/main.js missing (run npx tsc -p tsconfig.json), svc-engine.mjs not bundled');
    return undefined;
  }
  const { build } = await import('esbuild');
  const files = [
    ...(await bundleModule(build, dist, 'ffi/host/main', 'svc-engine.mjs')),
    ...(await Promise.all(WORKERS.map((entry) => bundleModule(build, dist, entry, `${MODULE_ROOT}/${entry}.mjs`)))).flat(),
  ];
  const listed = files.map((file) => ({ file, sha256: sha256Of(join(out, file)) }));
  console.log(`ffi/build.mjs: bundled ffi/build/svc-engine.mjs and ${WORKERS.length} workers`);
  return { file: 'svc-engine.mjs', sha256: listed[0].sha256, url: './svc-engine.mjs', files: listed };
}

/** Bundles dist/<entry>.js into ffi/build/<target>; returns the files written (target first, then its wasm). */
async function bundleModule(build, dist, entry, target) {
  const outfile = join(out, target);
  mkdirSync(dirname(outfile), { recursive: true });
  const result = await build({
    entryPoints: [join(dist, `${entry}.js`)],
    outfile: `${outfile}.tmp`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    metafile: true,
    // CommonJS dependencies require node built-ins; an ES module has no `require` of its own.
    banner: { js: "import { createRequire as svcCreateRequire } from 'node:module'; const require = svcCreateRequire(import.meta.url);" },
    plugins: [
      {
        name: 'svc-engine',
        setup(context) {
          // The version is fixed at build time: the bundle has no package.json to read it from.
          context.onLoad({ filter: /[\\/]engine[\\/]version[\\/]index\.js$/ }, () => ({
            contents: `export const VERSION = ${JSON.stringify(version)};`,
            loader: 'js',
          }));
          context.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, ({ path }) => {
            const module = relative(dist, path).split(sep).join('/').replace(/\.js$/, '.mjs');
            const url = posix.relative(posix.dirname(target), `${MODULE_ROOT}/${module}`);
            const text = readFileSync(path, 'utf8')
              // Dependencies loaded on first use (`requireModule('yaml')`, see engine/config/config-file.ts)
              // become plain require calls, which esbuild bundles and still runs on first use.
              .replace(/\brequireModule\((['"][^'"]+['"])\)/g, 'require($1)')
              // Each module keeps a URL of its own under svc-engine/, so workerSpawner finds the worker bundle.
              .replace(/\bimport\.meta\.url\b/g, `new URL(${JSON.stringify(`./${url}`)}, import.meta.url).href`);
            return { contents: text, loader: 'js' };
          });
        },
      },
    ],
  });
  renameSync(`${outfile}.tmp`, outfile);
  return [target, ...copyWasm(Object.keys(result.metafile.inputs), dirname(target))];
}

/**
 * Emscripten modules load their wasm from `new URL('<file>.wasm', import.meta.url)`: the bundle's
 * URL once bundled, so the wasm of each WASM_PACKAGES module in the bundle is copied beside it (ffi/build/<dir>/).
 */
function copyWasm(inputs, dir) {
  const copied = new Map();
  for (const input of inputs) {
    const path = join(process.cwd(), input);
    const pkg = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path)?.[1].replace(/\\/g, '/');
    if (!WASM_PACKAGES.includes(pkg)) continue;
    for (const [, file] of readFileSync(path, 'utf8').matchAll(/new URL\(\s*["']([^"'/]+\.wasm)["']\s*,\s*import\.meta\.url\s*\)/g)) {
      const source = join(dirname(path), file);
      if (copied.has(file) && copied.get(file) !== source) throw new Error(`ffi/build.mjs: two modules in ${dir} load ${file}`);
      copied.set(file, source);
    }
  }
  for (const [file, source] of copied) copyFileSync(source, join(out, dir, file));
  return [...copied.keys()].map((file) => posix.join(dir, file));
}

function sha256Of(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

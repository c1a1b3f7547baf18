// Builds libsvc_ffi with the machine's gcc (SPEC §9.4): ffi/build/libsvc_ffi.so for the repository's
// own use, and the release artifact libsvc_ffi-<classifier>.<ext> with its .sha256 and ffi-manifest.json.
// Without gcc (or off Linux) it explains and exits 0, so `npm install` still works; the C ABI tests then fail saying so.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ffi = dirname(fileURLToPath(import.meta.url));
const out = join(ffi, 'build');
const { version } = JSON.parse(readFileSync(join(ffi, '..', 'package.json'), 'utf8'));

const ARCH = { x64: 'x86_64', arm64: 'aarch64', ia32: 'x86', arm: 'armv7' };
const classifier = `${process.platform}-${ARCH[process.arch] ?? process.arch}`;
const ext = 'so';

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

// commit and builtAt stay null unless the release build stamps them (SPEC §9.2).
const buildInfo = {
  version,
  commit: process.env.SVC_BUILD_COMMIT || null,
  builtAt: process.env.SVC_BUILD_TIME || null,
  features: ['redis-backend', 'javascript', 'rhai'],
};
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'build_info.h'), `#define SVC_BUILD_INFO ${JSON.stringify(JSON.stringify(buildInfo))}\n`);

const library = join(out, `libsvc_ffi.${ext}`);
execFileSync('gcc', [
  '-std=c11', '-O2', '-fPIC', '-shared', '-pthread', '-Wall', '-Wextra',
  '-I', join(ffi, 'include'), '-I', out,
  `-Wl,--version-script=${join(ffi, 'src', 'exports.map')}`,
  '-o', library,
  join(ffi, 'src', 'svc.c'), join(ffi, 'src', 'host.c'), join(ffi, 'src', 'msgpack.c'),
  '-ldl',
], { stdio: 'inherit' });

const file = `libsvc_ffi-${classifier}.${ext}`;
// Copied then renamed: a program that has the previous artifact mapped keeps its old inode intact.
copyFileSync(library, join(out, `${file}.tmp`));
renameSync(join(out, `${file}.tmp`), join(out, file));
const sha256 = createHash('sha256').update(readFileSync(join(out, file))).digest('hex');
writeFileSync(join(out, `${file}.sha256`), `${sha256}  ${file}\n`);
const engine = await bundleEngine();
const manifest = { version, abi: 'v2', artifacts: [{ platform: classifier, file, sha256, url: `./${file}` }], ...(engine ? { engine } : {}) };
writeFileSync(join(out, 'ffi-manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`ffi/build.mjs: built ffi/build/${file}`);

/**
 * The engine host as one self-contained file next to the library (ffi/build/svc-engine.mjs): a copied
 * ffi/build/ starts it with only node on PATH, no node_modules. Bundled from the build (dist/), so it
 * needs `npx tsc -p tsconfig.json` first; without it the library still serves from the checkout.
 */
async function bundleEngine() {
  const entry = join(ffi, '..', 'dist', 'ffi', 'host', 'main.js');
  if (!existsSync(entry)) {
    console.warn('ffi/build.mjs: dist/ffi/host/main.js missing (run npx tsc -p tsconfig.json), svc-engine.mjs not bundled');
    return undefined;
  }
  const { build } = await import('esbuild');
  const bundle = join(out, 'svc-engine.mjs');
  await build({
    entryPoints: [entry],
    outfile: `${bundle}.tmp`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // CommonJS dependencies require node built-ins; an ES module has no `require` of its own.
    banner: { js: "import { createRequire as svcCreateRequire } from 'node:module'; const require = svcCreateRequire(import.meta.url);" },
    plugins: [{
      name: 'svc-engine',
      setup(context) {
        // The version is fixed at build time: the bundle has no package.json to read it from.
        context.onLoad({ filter: /[\\/]engine[\\/]version[\\/]index\.js$/ }, () => ({ contents: `export const VERSION = ${JSON.stringify(version)};`, loader: 'js' }));
        // Dependencies loaded on first use (`requireModule('yaml')`, see engine/config/config-file.ts) become
        // plain require calls, which esbuild bundles and still runs on first use.
        context.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, ({ path }) => {
          const text = readFileSync(path, 'utf8');
          return { contents: text.replace(/\brequireModule\((['"][^'"]+['"])\)/g, 'require($1)'), loader: 'js' };
        });
      },
    }],
  });
  renameSync(`${bundle}.tmp`, bundle);
  const sha = createHash('sha256').update(readFileSync(bundle)).digest('hex');
  console.log('ffi/build.mjs: bundled ffi/build/svc-engine.mjs');
  return { file: 'svc-engine.mjs', sha256: sha, url: './svc-engine.mjs' };
}

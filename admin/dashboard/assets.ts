import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  contentType: string;
  body: Buffer;
}

/** Where the page's files are served from. */
export const ASSET_PREFIX = '/_dashboard/assets/';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The static folder lives beside this file's source (`admin/dashboard/static`); compiled to
 * `dist/admin/dashboard/` the module is three folders further from it, so walk up to the package root
 * rather than copy files into dist/ (the build is plain `tsc`).
 */
function staticDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up += 1) {
    const candidate = join(dir, 'admin', 'dashboard', 'static');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('dashboard assets not found (admin/dashboard/static)');
}

/**
 * The ES module builds of preact, preact/hooks and htm from the installed packages (no CDN, no copy).
 * Resolved through `require` (import.meta.resolve is missing when a test runner loads this file as
 * CommonJS): preact's exports name its `.mjs` files for every condition; htm's hand `require` the
 * CommonJS build, and its ES module build sits beside it.
 */
function vendorFiles(): Record<string, string> {
  const require = createRequire(import.meta.url);
  return {
    'vendor/preact.mjs': require.resolve('preact'),
    'vendor/hooks.mjs': require.resolve('preact/hooks'),
    'vendor/htm.mjs': join(dirname(require.resolve('htm')), 'htm.mjs'),
  };
}

function asset(file: string): Asset {
  return { contentType: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', body: readFileSync(file) };
}

/** Reads every asset once, on the first dashboard request, and keeps them (they ship with the package). */
export class DashboardAssets {
  private files: Map<string, Asset> | undefined;

  private load(): Map<string, Asset> {
    if (this.files) return this.files;
    const files = new Map<string, Asset>();
    const dir = staticDir();
    for (const name of readdirSync(dir)) files.set(name, asset(join(dir, name)));
    for (const [name, file] of Object.entries(vendorFiles())) files.set(name, asset(file));
    this.files = files;
    return files;
  }

  /** `name` is the path below ASSET_PREFIX; undefined when the package has no such file. */
  get(name: string): Asset | undefined {
    return this.load().get(name);
  }

  shell(): Asset {
    const shell = this.get('index.html');
    if (!shell) throw new Error('dashboard shell missing');
    return shell;
  }
}

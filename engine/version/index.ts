import { readFileSync } from 'node:fs';

function packageVersion(): string {
  // Works from the sources (engine/version) and from the build (dist/engine/version): walk up to package.json.
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'svc' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0-dev';
}

/** svc's version (package.json): `svc --version`, the admin plane's config, `svc_version()`. Its own room so `--version` loads nothing else. */
export const VERSION = packageVersion();

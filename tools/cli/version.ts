import { readFileSync } from 'node:fs';

function packageVersion(): string {
  // Works from the sources (tools/cli) and from the build (dist/tools/cli): walk up to package.json.
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

export const VERSION = packageVersion();

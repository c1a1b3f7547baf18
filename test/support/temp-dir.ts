import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Test } from 'uvu';

/** Writes a file, creating its folders first. */
export function writeFileDeep(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export interface TempDir {
  /** The folder; valid from the suite's `before` hook until its `after` hook. */
  readonly path: string;
  /** Writes `name` (may hold folders) under the folder and returns its full path. */
  file(name: string, text: string): string;
}

/** A temporary folder made before the suite and removed after it. */
export function tempDirForSuite(test: Test, prefix: string): TempDir {
  let path = '';
  test.before(() => {
    path = mkdtempSync(join(tmpdir(), prefix));
  });
  test.after(() => {
    rmSync(path, { recursive: true, force: true });
  });
  return {
    get path() {
      return path;
    },
    file(name, text) {
      const full = join(path, name);
      writeFileDeep(full, text);
      return full;
    },
  };
}

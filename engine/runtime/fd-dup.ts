import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

type Dup = (fd: number) => number;

let loaded: Dup | undefined;

/**
 * dup(2) from native/build/fd_dup.node: node closes a server's descriptor on close(), so each engine
 * thread listens on its own duplicate. Loaded on first per-core use; missing, it says how to build it.
 */
export function dupFd(fd: number): number {
  return loadDup()(fd);
}

export function loadDup(): Dup {
  loaded ??= load();
  return loaded;
}

function load(): Dup {
  // From engine/runtime (sources under tsx) or dist/engine/runtime (compiled).
  const candidates = ['../../native/build/fd_dup.node', '../../../native/build/fd_dup.node'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) {
    throw new Error('--runtime per-core needs native/build/fd_dup.node: run `node native/build.mjs` (gcc and node headers) in the svc package');
  }
  return (createRequire(import.meta.url)(found) as { dup: Dup }).dup;
}

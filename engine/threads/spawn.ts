/**
 * Starts a worker thread (engine thread, script worker) from the module next to the caller. Tests run the TypeScript
 * sources through tsx and `npm start` runs dist/*.js; a worker does not inherit the parent's loader
 * hooks, so from source a bootstrap registers tsx before importing the entry.
 */
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A factory for workers running `<name>.ts` / `<name>.js` / `<name>.mjs` beside `callerUrl` (its import.meta.url). */
export function workerSpawner(callerUrl: string, name: string, options: WorkerOptions = {}): (extra?: WorkerOptions) => Worker {
  if (extname(fileURLToPath(callerUrl)) === '.ts') {
    const entry = JSON.stringify(new URL(`./${name}.ts`, callerUrl).href);
    // Resolved here, not in the eval worker: a bare specifier there resolves against the process's
    // working directory, which need not be the repository. (import.meta.resolve is missing when tsx
    // runs this file as CommonJS, so the package is located through its package.json.)
    const tsxRoot = dirname(createRequire(callerUrl).resolve('tsx/package.json'));
    const tsxApi = JSON.stringify(pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href);
    const bootstrap = `import(${tsxApi}).then((tsx) => { tsx.register(); return import(${entry}); });`;
    return (extra = {}) => new Worker(bootstrap, { ...options, ...extra, eval: true });
  }
  // The caller's own extension: .js under dist/, .mjs in the engine bundle beside libsvc_ffi (ffi/build.mjs).
  const entry = new URL(`./${name}${extname(fileURLToPath(callerUrl))}`, callerUrl);
  const execArgv = fileWorkerExecArgv(process.execArgv);
  return (extra = {}) => startWorker(entry, { ...(execArgv && { execArgv }), ...options, ...extra });
}

/**
 * The parent's Node options for a worker started from a file, where they must be given: undefined
 * (the worker inherits them, and Node leaves out on its own those a thread cannot take) unless the
 * parent has `--input-type`, which Node refuses for a file entry, so an embedding program run as
 * `node --input-type=module -e ...` (or from stdin) would have every worker die at start.
 */
function fileWorkerExecArgv(parent: readonly string[]): string[] | undefined {
  if (!parent.some((arg) => arg === '--input-type' || arg.startsWith('--input-type='))) return undefined;
  const kept: string[] = [];
  for (let i = 0; i < parent.length; i++) {
    if (parent[i].startsWith('--input-type=')) continue;
    if (parent[i] === '--input-type') {
      i++;
      continue;
    }
    kept.push(parent[i]);
  }
  return kept;
}

/**
 * A Worker, started again without the options Node refuses for a thread when they are given
 * explicitly (process-wide ones such as `--max-old-space-size` or `--expose-gc`, which apply to every
 * thread anyway): svc started as `node --max-old-space-size=4096 svc start` must still start its threads.
 */
function startWorker(entry: URL, options: WorkerOptions): Worker {
  try {
    return new Worker(entry, options);
  } catch (err) {
    const execArgv = options.execArgv;
    if ((err as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || !execArgv) throw err;
    // Node names them after the last ': ', separated by ', ' (as given, with any `=value`).
    const message = String((err as Error).message);
    const refused = new Set(
      message
        .slice(message.lastIndexOf(': ') + 2)
        .split(', ')
        .map(flagName),
    );
    return new Worker(entry, { ...options, execArgv: execArgv.filter((arg) => !refused.has(flagName(arg))) });
  }
}

function flagName(arg: string): string {
  const at = arg.indexOf('=');
  return at < 0 ? arg : arg.slice(0, at);
}

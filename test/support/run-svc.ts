/** Runs the real `svc` CLI (sources through tsx) to completion, from any working directory. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { childEnv, withoutNodeWarnings } from './child-env.js';
import { repoRoot } from './servers.js';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `--import` by absolute URL so a working directory outside the repository still finds tsx. */
export const svcCommand = [
  process.execPath,
  '--import',
  pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href,
  join(repoRoot, 'tools/svc.ts'),
];

export function runSvc(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const [command, ...prefix] = svcCommand;
    const child = spawn(command, [...prefix, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: childEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // A hang detector, not a timing bound: under a load of 35 on 2 cores one `svc -V` took 20 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr: withoutNodeWarnings(stderr) });
    });
  });
}

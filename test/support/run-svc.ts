/** Runs the real `svc` CLI (the build when current, else the sources: svc-cli.ts) to completion, from any working directory. */
import { spawn } from 'node:child_process';
import { childEnv, withoutNodeWarnings } from './child-env.js';
import { repoRoot } from './servers.js';
import { svcCli } from './svc-cli.js';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export const svcCommand = [process.execPath, ...svcCli];

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

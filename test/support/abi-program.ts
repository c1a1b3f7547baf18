/**
 * Builds libsvc_ffi and the C test program (abi.c), and runs it line by line: each output line is
 * `<label>\t<result>`; at `PAUSE` lines the test checks the engine from outside, then `resume()`s.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './servers.js';
import type { TempDir } from './temp-dir.js';

export const buildDir = join(repoRoot, 'ffi', 'build');

function requireGcc(): void {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('the C ABI tests need gcc: install gcc (e.g. apt-get install gcc) and run again');
  }
}

/** Compiles abi.c against include/svc.h into `program`, linked to the libsvc_ffi in `libDir` (rpath set). */
export function compileAbi(program: string, libDir: string): string {
  execFileSync(
    'gcc',
    [
      '-std=c11',
      '-Wall',
      '-Wextra',
      '-Werror',
      '-pthread',
      '-o',
      program,
      join(repoRoot, 'test', 'ffi', 'abi.c'),
      '-I',
      join(repoRoot, 'ffi', 'include'),
      '-L',
      libDir,
      '-lsvc_ffi',
      `-Wl,-rpath,${libDir}`,
    ],
    { stdio: 'inherit' },
  );
  return program;
}

/** Builds the library (ffi/build.mjs) and compiles abi.c against include/svc.h into `outDir`. */
export function buildAbiProgram(outDir: string): string {
  requireGcc();
  execFileSync(process.execPath, [join(repoRoot, 'ffi', 'build.mjs')], { stdio: 'ignore' });
  return compileAbi(join(outDir, 'abi'), buildDir);
}

/**
 * The test program, built by the first test that needs it: not in a before hook, because uvu reports a
 * hook's error as nothing at all, and a missing gcc must fail every test with the install hint.
 */
export function lazyAbiProgram(temp: TempDir): () => string {
  let built: string | undefined;
  return () => {
    built ??= buildAbiProgram(temp.path);
    return built;
  };
}

/**
 * The engine host from the TypeScript sources (so a test run never uses a stale build): node loads
 * tsx through NODE_OPTIONS, which the host process inherits from the C program.
 */
export function sourceHostEnv(): NodeJS.ProcessEnv {
  return { ...process.env, SVC_FFI_HOST: join(repoRoot, 'ffi', 'host', 'main.ts'), NODE_OPTIONS: '--import tsx' };
}

export class AbiRun {
  readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private waiting: (() => void) | undefined;
  private stderr = '';
  readonly exited: Promise<number | null>;

  constructor(program: string, args: string[], env: NodeJS.ProcessEnv = sourceHostEnv(), cwd = repoRoot) {
    this.child = spawn(program, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    // A program that died makes resume()'s write fail with EPIPE, and a spawn that fails reports only
    // 'error': either, unheard, would end the whole test run; next() reports the program gone.
    this.child.stdin!.on('error', () => undefined);
    this.child.on('error', (err) => {
      this.stderr += `\nspawn error: ${err.message}`;
    });
    let partial = '';
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      this.lines.push(...parts);
      this.waiting?.();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code) => {
        this.waiting?.();
        resolve(code);
      }),
    );
  }

  /**
   * The next line's result for `label` (lines must arrive in this order). The first line waits for the
   * engine host's cold start (node loading the TypeScript sources through tsx): seconds on a quiet box,
   * many more on a loaded one; a program that exits is noticed at once, so the bound costs nothing.
   */
  async next(label: string, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length === 0) {
      if (this.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`no '${label}' line (exit ${this.child.exitCode}); stderr: ${this.stderr}`);
      }
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 200);
      });
    }
    const line = this.lines.shift()!;
    const tab = line.indexOf('\t');
    const [got, value] = tab === -1 ? [line, ''] : [line.slice(0, tab), line.slice(tab + 1)];
    if (got !== label) throw new Error(`expected '${label}', got '${line}'; stderr: ${this.stderr}`);
    return value;
  }

  async json(label: string): Promise<any> {
    const value = await this.next(label);
    if (value.startsWith('SENTINEL\t')) throw new Error(`${label} failed: ${value}`);
    return JSON.parse(value);
  }

  /** The last error of a call that must have failed. */
  async sentinel(label: string): Promise<string> {
    const value = await this.next(label);
    if (!value.startsWith('SENTINEL\t')) throw new Error(`${label} should have failed, got ${value}`);
    return value.slice('SENTINEL\t'.length);
  }

  async pause(what: string): Promise<void> {
    const value = await this.next('PAUSE');
    if (value !== what) throw new Error(`expected PAUSE ${what}, got ${value}`);
  }

  resume(): void {
    this.child.stdin!.write('\n');
  }

  async finish(): Promise<number | null> {
    this.child.stdin!.end();
    return this.exited;
  }

  /** Kills the program if a failed assertion left it running; reaps it either way. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** The pids whose parent is `pid` (the engine host of a C program). */
export function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = join('/proc', entry, 'stat');
    if (!existsSync(stat)) continue;
    try {
      // Fields after the parenthesised command: state, ppid, ...
      const text = readFileSync(stat, 'utf8');
      const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

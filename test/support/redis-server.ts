/** A throwaway redis-server for the redis flow store tests, on a free loopback port, nothing persisted. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './servers.js';

export interface RedisServer {
  port: number;
  url: string;
  /** The server's process (benches read its CPU time). */
  pid: number | undefined;
  stop(): Promise<void>;
}

const INSTALL_HINT = 'install redis-server (apt-get install -y redis-server)';

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts redis-server (on `port`, e.g. to restart one, else a free one); throws with the install hint when
 * the binary is missing. With `dir`, every write is appended to a file there, so a restart keeps the data.
 */
export async function startRedis(port?: number, options: { dir?: string } = {}): Promise<RedisServer> {
  const probe = spawnSync('redis-server', ['--version']);
  if (probe.error) throw new Error(`redis flow store tests need redis-server: ${INSTALL_HINT}`);
  port ??= await freePort();
  const persistence = options.dir ? ['--dir', options.dir, '--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], { stdio: 'ignore' });
  // A spawn that fails (EAGAIN on a loaded box) reports only 'error': unheard, it would end the test run.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.on('error', () => {
      if (child.pid === undefined) resolve();
    });
  });
  for (let i = 0; i < 100; i += 1) {
    if (await reachable(port)) {
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        pid: child.pid,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (child.exitCode !== null || child.pid === undefined) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  await exited;
  throw new Error(`redis-server did not start on port ${port}`);
}

/**
 * Setup whose failure fails every test: uvu swallows an error thrown by a `before` hook (the suite
 * then reports 0 of N passed, with nothing printed and exit status 0).
 */
export class SuiteSetup<T> {
  private value: T | undefined;
  private error: unknown;

  constructor(private readonly setup: () => Promise<T>) {}

  /** For `test.before`: never throws. */
  readonly run = async (): Promise<void> => {
    try {
      this.value = await this.setup();
    } catch (err) {
      this.error = err;
    }
  };

  /** What setup made; throws its error (e.g. the install hint) in each test when it failed. */
  get(): T {
    if (this.error !== undefined) throw this.error;
    return this.value as T;
  }
}

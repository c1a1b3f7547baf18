/**
 * Drives svc with the exact command lines mountebank's CLI tests use for `mb` (mbTest/mb.js):
 *   start:   `<bin> restart --port P --logfile mb-test.log --pidfile test.pid <args...>`, then wait for the pidfile
 *   stop:    `<bin> stop --pidfile test.pid`, then wait for the pidfile to go
 *   save:    `<bin> save --port P <args...>`       replay: `<bin> replay --port P <args...>`
 * each run in the test's working directory, so only the binary name differs from mountebank's suite.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, http, type HttpOptions, type HttpResponse } from '../servers.js';
import { runSvc, type CliRun } from '../run-svc.js';

export class MbStyle {
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-mbcli-'));
  host = 'localhost';
  private running = false;

  private constructor(
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The metrics port goes through the environment so the command line stays mountebank's. */
  static async create(): Promise<MbStyle> {
    return new MbStyle(await freePort(), { SVC_METRICS_PORT: String(await freePort()) });
  }

  get pidfile(): string {
    return join(this.dir, 'test.pid');
  }

  async start(args: string[] = []): Promise<CliRun> {
    const hostIndex = args.indexOf('--host');
    this.host = hostIndex >= 0 ? args[hostIndex + 1]! : 'localhost';
    const run = await this.cli(['restart', '--port', String(this.port), '--logfile', 'mb-test.log', '--pidfile', 'test.pid', ...args]);
    if (run.status !== 0 || !existsSync(this.pidfile)) {
      throw new Error(`restart failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
    }
    this.running = true;
    return run;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    const run = await this.cli(['stop', '--pidfile', 'test.pid']);
    this.running = false;
    if (run.status !== 0 || existsSync(this.pidfile)) throw new Error(`stop failed (${run.status}): ${run.stderr}`);
  }

  save(args: string[] = []): Promise<CliRun> {
    return this.cli(['save', '--port', String(this.port), ...args]);
  }
  replay(args: string[] = []): Promise<CliRun> {
    return this.cli(['replay', '--port', String(this.port), ...args]);
  }

  cli(args: string[]): Promise<CliRun> {
    return runSvc(args, { cwd: this.dir, env: this.env });
  }

  /** An admin call as mb.js makes it: JSON body, to the host the server was started with. */
  admin(method: string, path: string, body?: unknown): Promise<HttpResponse> {
    return http(method, `http://${this.host}:${this.port}${path}`, {
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async dispose(): Promise<void> {
    await this.stop().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function get(port: number, path: string, options: HttpOptions & { host?: string } = {}): Promise<HttpResponse> {
  return http('GET', `http://${options.host ?? 'localhost'}:${port}${path}`, options);
}

/** GET over TLS without verifying the imposter's (self-signed) certificate, as mountebank's client does. */
export function httpsGet(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: 'localhost', port, path, headers, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`GET https://localhost:${port}${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

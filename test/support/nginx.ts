/** A real nginx on loopback, round-robin in front of a fleet's nodes, passing on what a dead node cannot take (installed by .ci/run). */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from './servers.js';

export interface Balancer {
  url: string;
  stop(): Promise<void>;
}

/** One `upstream` over `backends` (host:port each), served on 127.0.0.1:`port`; the test's own prefix dir, no daemon. */
export async function startNginx(port: number, backends: string[]): Promise<Balancer> {
  if (spawnSync('nginx', ['-v']).error) throw new Error('the fleet test needs nginx: apt-get install -y nginx');
  const dir = mkdtempSync(join(tmpdir(), 'svc-fleet-nginx-'));
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # max_fails=0: a node refusing before its imposters exist is not set aside (round-robin stays even);
  # a request a node cannot take (killed) goes to the next one, as a production balancer would.
  upstream fleet { ${backends.map((b) => `server ${b} max_fails=0;`).join(' ')} }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://fleet; proxy_next_upstream error timeout; }
  }
}
`,
  );
  const child: ChildProcess = spawn('nginx', ['-p', dir, '-c', conf], { stdio: 'ignore' });
  // A spawn that fails (EAGAIN on a loaded box) reports only 'error': unheard, it would end the test run.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.on('error', () => {
      if (child.pid === undefined) resolve();
    });
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i += 1) {
    if (child.exitCode !== null || child.pid === undefined) break;
    try {
      await http('GET', url, { timeoutMs: 1_000 });
      return {
        url,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  child.kill('SIGKILL');
  await exited;
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`nginx did not start on port ${port}`);
}

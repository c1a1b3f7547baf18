/**
 * wrk (Debian's package): installation check and one measured run.
 *
 * Each run gets a generated Lua script that sets the request and prints a JSON summary from
 * `done()`, which is sturdier than scraping wrk's human-readable output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRequest } from './scenarios.js';

export interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Socket errors (connect/read/write/timeout) plus responses outside 2xx/3xx. */
  errors: number;
}

export interface WrkRun {
  url: string;
  request: BenchRequest;
  seconds: number;
  connections: number;
  threads: number;
  /** Prefix such as ['taskset', '-c', '1'] to pin wrk. */
  wrapper: string[];
}

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export function hasTaskset(): boolean {
  return onPath('taskset');
}

/** Installs wrk with apt-get when it is missing and we are root; otherwise explains what to do. */
export function ensureWrk(): void {
  if (onPath('wrk')) return;
  if (process.getuid?.() !== 0) {
    throw new Error('wrk is not installed and this is not root: run `apt-get install -y wrk` (Debian) and retry');
  }
  process.stderr.write('bench: installing wrk with apt-get\n');
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', 'wrk'],
  ]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status})`);
  }
  if (!onPath('wrk')) throw new Error('apt-get installed wrk but it is not on PATH');
}

/** A Lua string literal: printable ASCII kept, everything else as decimal byte escapes. */
function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    const ch = String.fromCharCode(byte);
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (byte >= 0x20 && byte < 0x7f) out += ch;
    else out += `\\${byte}`;
  }
  return `${out}"`;
}

function luaScript(request: BenchRequest): string {
  const lines = [`wrk.method = ${luaString(request.method)}`];
  if (request.body !== undefined) lines.push(`wrk.body = ${luaString(request.body)}`);
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'WRK_JSON {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"errors":%d}\\n\',',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),',
    '    e.connect + e.read + e.write + e.timeout + e.status))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-wrk-'));
  try {
    const script = join(dir, 'request.lua');
    writeFileSync(script, luaScript(run.request));
    const args = ['wrk', `-t${run.threads}`, `-c${run.connections}`, `-d${run.seconds}s`, '--timeout', '10s', '-s', script, `${run.url}${run.request.path}`];
    const [command, ...rest] = [...run.wrapper, ...args];
    const output = await capture(command!, rest);
    const line = output.split('\n').find((l) => l.startsWith('WRK_JSON '));
    if (!line) throw new Error(`wrk printed no summary:\n${output}`);
    const raw = JSON.parse(line.slice('WRK_JSON '.length)) as { requests: number; durationUs: number; p50Us: number; p99Us: number; errors: number };
    return {
      requestsPerSecond: raw.requests / (raw.durationUs / 1e6),
      p50Ms: raw.p50Us / 1000,
      p99Ms: raw.p99Us / 1000,
      requests: raw.requests,
      errors: raw.errors,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function capture(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`));
    });
  });
}

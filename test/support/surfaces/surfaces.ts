/**
 * The surfaces the shared admin cases run over: admin HTTP (the `svc` binary, spawned), the embedding
 * API (ServerBuilder from the package entry, in this process, driven through the admin plane it
 * serves), the C ABI (libsvc_ffi through Python ctypes) and the admin plane a C handle serves
 * (svc_serve_admin). Each maps one abstract operation onto its own call and reports the JSON it
 * answered, or its error.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { parseCliOptions, ServerBuilder, type RunningServer as EmbeddedServer } from '../../../index.js';
import { createLogger } from '../../../engine/log/index.js';
import { http, repoRoot, startSvc, type RunningServer } from '../servers.js';

/** `{index}` or `{id}`, as the C ABI's ref_json takes it. */
export type StubRef = { index: number } | { id: string };

export type AdminOp =
  | { op: 'create'; imposter: Record<string, unknown> }
  /** A body that is not JSON at all. */
  | { op: 'createRaw'; text: string }
  | { op: 'get'; replayable?: boolean }
  | { op: 'list'; replayable?: boolean }
  | { op: 'addStub'; stub: unknown; index?: number }
  | { op: 'replaceStubs'; stubs: unknown[] }
  | { op: 'getStub'; ref: StubRef }
  | { op: 'updateStub'; ref: StubRef; stub: unknown }
  | { op: 'deleteStub'; ref: StubRef }
  | { op: 'recorded' }
  | { op: 'clearRecorded' }
  | { op: 'verify'; body: Record<string, unknown> }
  | { op: 'setEnabled'; enabled: boolean }
  | { op: 'scenarios'; flowId?: string }
  | { op: 'setScenario'; name: string; body: Record<string, unknown> }
  | { op: 'resetScenarios'; flowId?: string }
  | { op: 'flowGet'; flowId: string; key: string }
  | { op: 'flowPut'; flowId: string; key: string; value: unknown }
  | { op: 'flowDelete'; flowId: string; key: string }
  | { op: 'deleteImposter' }
  /** Reconciles the whole set toward these imposters (each placed on the case's port). */
  | { op: 'applyConfig'; imposters: Array<Record<string, unknown>> }
  | { op: 'deleteAll' }
  | { op: 'warnings' }
  | { op: 'spaceAddStub'; flowId: string; stub: unknown }
  | { op: 'spaceStubs'; flowId: string }
  | { op: 'spaceDelete'; flowId: string };

/** A success with the JSON answered (mutations answer a status: number on the C ABI, a document on HTTP), or a failure. */
export type Outcome =
  | { ok: true; json: unknown }
  /** `status` only where the surface has one (HTTP); `message` is every error message, joined by '; '. */
  | { ok: false; status?: number; message: string };

export interface AdminSurface {
  name: string;
  /** Runs `op` against the imposter on `port`. */
  run(op: AdminOp, port: number): Promise<Outcome>;
  /** Deletes every imposter (between cases). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

function refPath(ref: StubRef): string {
  return 'index' in ref ? String(ref.index) : `by-id/${encodeURIComponent(ref.id)}`;
}

function query(params: Record<string, string | boolean | undefined>): string {
  const set = Object.entries(params).filter((entry): entry is [string, string | boolean] => entry[1] !== undefined && entry[1] !== false);
  return set.length === 0 ? '' : `?${new URLSearchParams(set.map(([k, v]) => [k, String(v)])).toString()}`;
}

/** The route and body each operation maps to on the admin HTTP API (docs/imposters.md-§4.8). */
function httpCall(op: AdminOp, port: number): { method: string; path: string; body?: unknown } {
  const at = `/imposters/${port}`;
  switch (op.op) {
    case 'create':
      return { method: 'POST', path: '/imposters', body: { ...op.imposter, port } };
    case 'createRaw':
      return { method: 'POST', path: '/imposters', body: op.text };
    case 'get':
      return { method: 'GET', path: `${at}${query({ replayable: op.replayable })}` };
    case 'list':
      return { method: 'GET', path: `/imposters${query({ replayable: op.replayable })}` };
    case 'addStub':
      return { method: 'POST', path: `${at}/stubs`, body: op.index === undefined ? { stub: op.stub } : { stub: op.stub, index: op.index } };
    case 'replaceStubs':
      return { method: 'PUT', path: `${at}/stubs`, body: { stubs: op.stubs } };
    case 'getStub':
      return { method: 'GET', path: `${at}/stubs/${refPath(op.ref)}` };
    case 'updateStub':
      return { method: 'PUT', path: `${at}/stubs/${refPath(op.ref)}`, body: op.stub };
    case 'deleteStub':
      return { method: 'DELETE', path: `${at}/stubs/${refPath(op.ref)}` };
    case 'recorded':
      return { method: 'GET', path: `${at}/savedRequests` };
    case 'clearRecorded':
      return { method: 'DELETE', path: `${at}/savedRequests` };
    case 'verify':
      return { method: 'POST', path: `${at}/verify`, body: op.body };
    case 'setEnabled':
      return { method: 'POST', path: `${at}/${op.enabled ? 'enable' : 'disable'}` };
    case 'scenarios':
      return { method: 'GET', path: `${at}/scenarios${query({ flowId: op.flowId })}` };
    case 'setScenario':
      return { method: 'PUT', path: `${at}/scenarios/${encodeURIComponent(op.name)}/state`, body: op.body };
    case 'resetScenarios':
      return { method: 'POST', path: `${at}/scenarios/reset`, body: op.flowId === undefined ? {} : { flowId: op.flowId } };
    case 'flowGet':
      return { method: 'GET', path: `/admin${at}/flow-state/${op.flowId}/${op.key}` };
    case 'flowPut':
      return { method: 'PUT', path: `/admin${at}/flow-state/${op.flowId}/${op.key}`, body: { value: op.value } };
    case 'flowDelete':
      return { method: 'DELETE', path: `/admin${at}/flow-state/${op.flowId}/${op.key}` };
    case 'deleteImposter':
      return { method: 'DELETE', path: at };
    case 'applyConfig':
      return { method: 'PUT', path: '/imposters', body: { imposters: op.imposters.map((imposter) => ({ ...imposter, port })) } };
    case 'deleteAll':
      return { method: 'DELETE', path: '/imposters' };
    // No route of its own: the detail's `_svc.warnings` (warningsOf).
    case 'warnings':
      return { method: 'GET', path: at };
    case 'spaceAddStub':
      return { method: 'POST', path: `${at}/spaces/${op.flowId}/stubs`, body: op.stub };
    case 'spaceStubs':
      return { method: 'GET', path: `${at}/spaces/${op.flowId}/stubs` };
    case 'spaceDelete':
      return { method: 'DELETE', path: `${at}/spaces/${op.flowId}` };
  }
}

/** svc_stub_warnings answers the array the HTTP detail carries as `_svc.warnings`. */
function warningsOf(detail: unknown): unknown {
  return (detail as { _svc?: { warnings?: unknown } } | undefined)?._svc?.warnings;
}

/** The admin HTTP API on `adminPort`, whoever serves it. */
function httpSurface(name: string, adminPort: number, stop: () => Promise<void>): AdminSurface {
  const base = `http://127.0.0.1:${adminPort}`;
  return {
    name,
    async run(op, port) {
      const { method, path, body } = httpCall(op, port);
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const res = await http(method, `${base}${path}`, { headers: { 'Content-Type': 'application/json' }, body: text });
      let json: unknown;
      try {
        json = res.body === '' ? undefined : JSON.parse(res.body);
      } catch {
        json = res.body;
      }
      if (res.status < 400) return { ok: true, json: op.op === 'warnings' ? warningsOf(json) : json };
      const entries = (json as { errors?: Array<{ message: string }> } | undefined)?.errors;
      return { ok: false, status: res.status, message: entries ? entries.map((e) => e.message).join('; ') : res.body };
    },
    async reset() {
      const res = await http('DELETE', `${base}/imposters`);
      if (res.status !== 200) throw new Error(`${name}: DELETE /imposters answered ${res.status} ${res.body}`);
    },
    stop,
  };
}

function runtimeArgs(): string[] {
  const runtime = process.env.SVC_RUNTIME;
  return runtime === undefined || runtime === '' ? [] : ['--runtime', runtime];
}

/** `svc start` as a separate process. */
export async function adminHttpSurface(pidDir: string): Promise<AdminSurface> {
  const server: RunningServer = await startSvc({ args: ['--pidfile', join(pidDir, 'svc.pid'), '--metrics-port', '0', ...runtimeArgs()] });
  return httpSurface('admin HTTP', server.adminPort, () => server.stop());
}

/** ServerBuilder from the package's entry (app/), started in this process. */
export async function embedSurface(pidDir: string): Promise<AdminSurface> {
  const options = parseCliOptions(['--port', '0', '--metrics-port', '0', '--pidfile', join(pidDir, 'embed.pid'), ...runtimeArgs()], {});
  const server: EmbeddedServer = await ServerBuilder.fromCli(options)
    .logger(createLogger({ level: 'error', quiet: true }))
    .start();
  return httpSurface('embedding API', server.adminAddr().port, () => server.shutdown());
}

/** The C function, and its arguments after the handle, each operation maps to (docs/c-abi.md). */
function abiCall(op: AdminOp, port: number): { fn: string; args: unknown[] } {
  const text = (value: unknown) => JSON.stringify(value);
  switch (op.op) {
    case 'create':
      return { fn: 'svc_create_imposter', args: [text({ ...op.imposter, port })] };
    case 'createRaw':
      return { fn: 'svc_create_imposter', args: [op.text] };
    case 'get':
      return { fn: 'svc_get_imposter', args: [port, op.replayable ? text({ replayable: true }) : null] };
    case 'list':
      return { fn: 'svc_list_imposters', args: [op.replayable ? text({ replayable: true }) : null] };
    case 'addStub':
      return { fn: 'svc_add_stub', args: [port, text(op.stub), op.index ?? -1] };
    case 'replaceStubs':
      return { fn: 'svc_replace_stubs', args: [port, text({ stubs: op.stubs })] };
    case 'getStub':
      return { fn: 'svc_get_stub', args: [port, text(op.ref)] };
    case 'updateStub':
      return { fn: 'svc_update_stub', args: [port, text(op.ref), text(op.stub)] };
    case 'deleteStub':
      return { fn: 'svc_delete_stub', args: [port, text(op.ref)] };
    case 'recorded':
      return { fn: 'svc_recorded', args: [port] };
    case 'clearRecorded':
      return { fn: 'svc_clear_recorded', args: [port] };
    case 'verify':
      return { fn: 'svc_verify', args: [port, text(op.body)] };
    case 'setEnabled':
      return { fn: 'svc_set_imposter_enabled', args: [port, op.enabled ? 1 : 0] };
    case 'scenarios':
      return { fn: 'svc_scenarios', args: [port, op.flowId ?? null] };
    case 'setScenario':
      return { fn: 'svc_set_scenario_state', args: [port, op.name, text(op.body)] };
    case 'resetScenarios':
      return { fn: 'svc_reset_scenarios', args: [port, op.flowId ?? null] };
    case 'flowGet':
      return { fn: 'svc_flow_state_get', args: [port, op.flowId, op.key] };
    case 'flowPut':
      return { fn: 'svc_flow_state_put', args: [port, op.flowId, op.key, text(op.value)] };
    case 'flowDelete':
      return { fn: 'svc_flow_state_delete', args: [port, op.flowId, op.key] };
    case 'deleteImposter':
      return { fn: 'svc_delete_imposter', args: [port] };
    case 'applyConfig':
      return { fn: 'svc_apply_config', args: [text({ imposters: op.imposters.map((imposter) => ({ ...imposter, port })) })] };
    case 'deleteAll':
      return { fn: 'svc_delete_all', args: [] };
    case 'warnings':
      return { fn: 'svc_stub_warnings', args: [port] };
    case 'spaceAddStub':
      return { fn: 'svc_space_add_stub', args: [port, op.flowId, text(op.stub)] };
    case 'spaceStubs':
      return { fn: 'svc_space_list_stubs', args: [port, op.flowId] };
    case 'spaceDelete':
      return { fn: 'svc_space_delete', args: [port, op.flowId] };
  }
}

/** One line out of the driver per call, strictly in order. */
class DriverLines {
  private readonly pending: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private closed = false;

  constructor(lines: Interface) {
    lines.on('line', (line) => {
      if (this.waiter) {
        const wake = this.waiter;
        this.waiter = undefined;
        wake(line);
      } else {
        this.pending.push(line);
      }
    });
    lines.on('close', () => {
      this.closed = true;
      this.waiter?.(undefined);
    });
  }

  next(): Promise<string | undefined> {
    if (this.pending.length > 0) return Promise.resolve(this.pending.shift());
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}

interface AbiDriver {
  /** One C call on the driver's handle: its result (strings decoded and freed) and the last error. */
  call(fn: string, args: unknown[]): Promise<{ ret: unknown; error: string | null }>;
  /** svc_stop, then the driver exits. */
  stop(): Promise<void>;
}

/** libsvc_ffi (built by ffi/build.mjs) through abi-driver.py, with the engine host run from the TypeScript sources. */
async function startAbiDriver(): Promise<AbiDriver> {
  execFileSync(process.execPath, [join(repoRoot, 'ffi', 'build.mjs')], { stdio: 'ignore' });
  const library = join(repoRoot, 'ffi', 'build', 'libsvc_ffi.so');
  const env = { ...process.env, SVC_FFI_HOST: join(repoRoot, 'ffi', 'host', 'main.ts'), NODE_OPTIONS: '--import tsx' };
  const child: ChildProcess = spawn('python3', [join(repoRoot, 'test', 'support', 'surfaces', 'abi-driver.py'), library], {
    cwd: repoRoot,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  // A driver that died makes the next write to its stdin fail with EPIPE, and a spawn that fails reports
  // only 'error': either, unheard, would end the whole test run; the next read reports the driver gone.
  child.stdin!.on('error', () => undefined);
  child.on('error', (err) => {
    stderr += `\nspawn error: ${err.message}`;
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const lines = new DriverLines(createInterface({ input: child.stdout! }));
  let queue: Promise<unknown> = Promise.resolve();

  const answer = async (): Promise<{ ret: unknown; error: string | null }> => {
    const line = await lines.next();
    if (line === undefined) throw new Error(`the ctypes driver ended; stderr: ${stderr}`);
    return JSON.parse(line) as { ret: unknown; error: string | null };
  };
  const stop = async () => {
    child.stdin!.end();
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(killer);
  };

  const started = await answer().catch(async (err: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw err;
  });
  if (started.ret !== 'started') {
    await stop();
    throw new Error(`svc_start failed: ${started.error}; stderr: ${stderr}`);
  }
  return {
    call(fn, args) {
      const result = queue.then(() => {
        child.stdin!.write(`${JSON.stringify({ fn, args })}\n`);
        return answer();
      });
      queue = result.catch(() => undefined);
      return result;
    },
    stop,
  };
}

/** The C ABI's in-process functions. */
export async function cAbiSurface(): Promise<AdminSurface> {
  const driver = await startAbiDriver();
  return {
    name: 'C ABI',
    async run(op, port) {
      const { fn, args } = abiCall(op, port);
      const { ret, error } = await driver.call(fn, args);
      // The sentinels of docs/c-abi.md: NULL for strings, -1 for int functions, 0 for svc_create_imposter.
      const failed = ret === null || ret === -1 || (fn === 'svc_create_imposter' && ret === 0);
      if (failed) return { ok: false, message: error ?? '(no last error)' };
      return { ok: true, json: typeof ret === 'string' ? JSON.parse(ret) : ret };
    },
    async reset() {
      const { ret, error } = await driver.call('svc_delete_all', []);
      if (ret !== 0) throw new Error(`svc_delete_all: ${error}`);
    },
    stop: () => driver.stop(),
  };
}

/** The admin plane a C handle serves (svc_serve_admin), over the handle's own manager. */
export async function cAbiAdminSurface(): Promise<AdminSurface> {
  const driver = await startAbiDriver();
  const { ret, error } = await driver.call('svc_serve_admin', ['{}']);
  if (typeof ret !== 'string') {
    await driver.stop();
    throw new Error(`svc_serve_admin: ${error}`);
  }
  return httpSurface('C ABI admin plane', (JSON.parse(ret) as { adminPort: number }).adminPort, () => driver.stop());
}

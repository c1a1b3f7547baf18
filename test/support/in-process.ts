/**
 * The admin plane and manager started inside the test process (no spawn): fast, and still
 * exercised only through the admin HTTP port and imposter ports.
 */
import { createAdminServer, listenAdmin, type AdminSettings, type EventHub } from '../../admin/index.js';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import type { Server } from 'node:http';
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, http, type HttpOptions, type HttpResponse } from './servers.js';
import { suiteFixture } from './suite-resource.js';

export interface InProcessSvc {
  adminPort: number;
  /** For wiring planes that observe the engine (metrics, events) in tests. */
  manager: ImposterManager;
  /** The admin plane's node:http server. */
  server: Server;
  admin: AdminCall;
  /** POSTs an http imposter on a free port (the config may override both) and returns its port; anything but 201 fails the test. */
  createImposter(config: Record<string, unknown>): Promise<number>;
  stop(): Promise<void>;
}

/** The admin settings of a test's plane: any client, parsed bodies, no key unless given. */
export function testAdminSettings(overrides: Partial<AdminSettings> = {}): AdminSettings {
  return { version: 'test', port: 0, localOnly: false, ipWhitelist: ['*'], noParse: false, requireAdminAuth: false, ...overrides };
}

export type AdminCall = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<HttpResponse & { json: any }>;

/** Calls to an admin plane on loopback `port`: JSON bodies (strings sent as they are), the answer with its body parsed when it is JSON. */
export function adminCaller(port: number, timeoutMs?: number): AdminCall {
  return async (method, path, body, headers = {}) => {
    const opts: HttpOptions = { headers: { 'Content-Type': 'application/json', ...headers }, timeoutMs };
    if (body !== undefined) opts.body = typeof body === 'string' ? body : JSON.stringify(body);
    const res = await http(method, `http://127.0.0.1:${port}${path}`, opts);
    let json: any;
    try {
      json = JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    return { ...res, json };
  };
}

export interface InProcessOptions {
  allowInjection?: boolean;
  apiKey?: string;
  events?: EventHub;
  scriptsDir?: string;
  /** How long an admin call through `admin` may take (default: http's 30 s); for suites that send very large stub lists. */
  adminTimeoutMs?: number;
}

export async function startInProcess(options: InProcessOptions = {}): Promise<InProcessSvc> {
  const log = createLogger({ level: 'error', quiet: true });
  const manager = new ImposterManager({ allowInjection: options.allowInjection ?? false, log, scriptsDir: options.scriptsDir });
  const server = createAdminServer({
    manager,
    log,
    events: options.events,
    settings: testAdminSettings({ apiKey: options.apiKey }),
  });
  const admin = await listenAdmin(server, 0, '127.0.0.1');
  const adminCall = adminCaller(admin.port, options.adminTimeoutMs);
  return {
    adminPort: admin.port,
    manager,
    server,
    admin: adminCall,
    async createImposter(config) {
      const port = await freePort();
      const res = await adminCall('POST', '/imposters', { port, protocol: 'http', ...config });
      assert.is(res.status, 201, JSON.stringify(res.json));
      return res.json.port as number;
    },
    async stop() {
      await manager.close();
      await admin.close();
    },
  };
}

/** A request to an imposter port on loopback. */
export function call(port: number, method: string, path: string, options: HttpOptions = {}): Promise<HttpResponse> {
  return http(method, `http://127.0.0.1:${port}${path}`, options);
}

/**
 * One JavaScript and one Rhai run before a file's tests, so a sandbox worker's cold start (seconds on
 * a loaded machine) is not charged to the first test's script deadline.
 */
export async function warmScriptWorkers(svc: InProcessSvc): Promise<void> {
  const port = await svc.createImposter({
    _svc: { scriptEngine: { timeoutMs: 120_000 } },
    stubs: [
      { predicates: [{ equals: { path: '/js' } }], responses: [{ _svc: { script: { engine: 'js', code: 'return http(200, "warm");' } } }] },
      { responses: [{ _svc: { script: { engine: 'rhai', code: 'http(200, "warm")' } } }] },
    ],
  });
  for (const path of ['/js', '/rhai']) {
    const res = await call(port, 'GET', path, { timeoutMs: 120_000 });
    if (res.body !== 'warm') throw new Error(`warming the script workers (${path}): ${res.status} ${res.body}`);
  }
  await svc.admin('DELETE', `/imposters/${port}`);
}

export interface InProcessSuiteOptions extends InProcessOptions {
  /** Runs warmScriptWorkers once started (suites whose first test runs a script). */
  warmScripts?: boolean;
  /** Keeps imposters from one test to the next; by default each test starts with none (DELETE /imposters after each). */
  keepImposters?: boolean;
}

/**
 * The set-up most suites share: one in-process svc started before the suite's first test, its imposters
 * deleted after each test, stopped after the last (see suiteFixture). Hooks that use it are registered
 * after this call, so they run once it is started.
 */
export function inProcessForSuite(test: Test, options: InProcessSuiteOptions = {}): InProcessSvc {
  const { warmScripts, keepImposters, ...startOptions } = options;
  const start = async (): Promise<InProcessSvc> => {
    const svc = await startInProcess(startOptions);
    if (warmScripts) await warmScriptWorkers(svc).catch((err: unknown) => svc.stop().then(() => Promise.reject(err)));
    return svc;
  };
  return suiteFixture(test, start, {
    stop: (svc) => svc.stop(),
    afterEach: keepImposters ? undefined : (svc) => svc.admin('DELETE', '/imposters').then(() => undefined),
  });
}

/**
 * An in-process admin plane with an intercept control, and clients that go through the proxy:
 * absolute-form HTTP and CONNECT tunnels (TLS or cleartext) over real loopback sockets.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAdminServer, listenAdmin, InterceptControl } from '../../admin/index.js';
import { imposterProtocols } from '../../admin/intercept/index.js';
import { createLogger } from '../../engine/log/index.js';
import { ImposterManager } from '../../engine/manager/index.js';
import { adminCaller, testAdminSettings, type AdminCall } from './in-process.js';
import { freePort } from './servers.js';
import { suiteFixture } from './suite-resource.js';

export interface InterceptServer {
  adminPort: number;
  control: InterceptControl;
  manager: ImposterManager;
  admin: AdminCall;
  /** POSTs /intercept (201 or the test fails) and returns the answer. */
  startIntercept(body?: unknown): Promise<{ interceptPort: number; interceptUrl: string; caCertPem?: string; caKeyPem?: string }>;
  stop(): Promise<void>;
}

export interface InterceptServerOptions {
  requireAdminAuth?: boolean;
  apiKey?: string;
  allowInjection?: boolean;
}

/** The admin plane with an intercept control the test holds (so it can also call it directly, as the C ABI does). */
export async function startInterceptServer(options: InterceptServerOptions = {}): Promise<InterceptServer> {
  const log = createLogger({ level: 'error', quiet: true });
  const manager = new ImposterManager({ allowInjection: options.allowInjection ?? false, log });
  const control = new InterceptControl({ log, protocolOf: imposterProtocols(manager) });
  const settings = testAdminSettings({ requireAdminAuth: options.requireAdminAuth ?? false, apiKey: options.apiKey });
  const server = createAdminServer({ manager, log, settings, intercept: control });
  const admin = await listenAdmin(server, 0, '127.0.0.1');
  const adminCall = adminCaller(admin.port);
  return {
    adminPort: admin.port,
    control,
    manager,
    admin: adminCall,
    async startIntercept(body = {}) {
      const res = await adminCall('POST', '/intercept', body);
      assert.is(res.status, 201, res.body);
      return res.json;
    },
    async stop() {
      await control.stop();
      await manager.close();
      await admin.close();
    },
  };
}

/** One intercept server for a suite (see suiteFixture): the proxy stopped (DELETE /intercept) after each test. */
export function interceptForSuite(test: Test, options: InterceptServerOptions = {}): InterceptServer {
  return suiteFixture(test, () => startInterceptServer(options), {
    stop: (svc) => svc.stop(),
    afterEach: (svc) => svc.admin('DELETE', '/intercept').then(() => undefined),
  });
}

export interface ProxiedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ProxiedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** An absolute-form request (`GET http://host/path`) sent to the proxy. */
export function viaProxy(proxyPort: number, url: string, options: ProxiedRequest = {}): Promise<ProxiedResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: proxyPort, method: options.method ?? 'GET', path: url, headers: options.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${url} through the proxy timed out`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** `CONNECT authority`; resolves with the status and, on 200, the tunnel socket. */
export function connectTunnel(proxyPort: number, authority: string): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: authority, agent: false });
    req.on('connect', (res, socket) => {
      // node:http hands the tunnel over without an 'error' listener; the proxy may reset it (a refused
      // handshake, DELETE /intercept): tests read that as 'close', and the run must not end on it.
      socket.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, socket });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, socket: res.socket });
    });
    req.on('error', reject);
    req.end();
  });
}

/** TLS inside a CONNECT tunnel, checking the proxy's leaf for `host` against `ca` (SNI only for DNS names, as clients do). */
export async function tlsTunnel(proxyPort: number, authority: string, ca: string): Promise<TLSSocket> {
  const { status, socket } = await connectTunnel(proxyPort, authority);
  assert.is(status, 200, `CONNECT ${authority}`);
  const host = authority.slice(0, authority.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const secure = tlsConnect({ socket, ca, host, servername: isIP(host) ? undefined : host });
    secure.once('secureConnect', () => resolve(secure));
    secure.once('error', reject);
  });
}

/** One HTTP/1.1 request over an established (TLS or cleartext) tunnel socket; closes it afterwards. */
export function requestOver(socket: Socket, host: string, path: string, options: ProxiedRequest = {}): Promise<ProxiedResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host,
        path,
        method: options.method ?? 'GET',
        headers: { Host: host, ...options.headers },
        // No agent: node then uses createConnection (an agent would open its own connection).
        createConnection: () => socket,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          socket.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${host}${path} through the tunnel timed out`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** HTTPS through the proxy to `authority` (host:port), trusting only `ca`. */
export async function httpsViaProxy(proxyPort: number, authority: string, path: string, ca: string, options: ProxiedRequest = {}): Promise<ProxiedResponse> {
  const secure = await tlsTunnel(proxyPort, authority, ca);
  return requestOver(secure, authority.slice(0, authority.lastIndexOf(':')), path, options);
}

export { freePort };

/** A self-signed certificate and key made by the openssl CLI (`ca` sets basicConstraints CA:TRUE). */
export function opensslCertificate(
  dir: string,
  name: string,
  options: { ca: boolean; key: 'rsa' | 'ec' },
): { certPath: string; keyPath: string; certPem: string; keyPem: string } {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  const keyArgs = options.key === 'ec' ? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'] : ['-newkey', 'rsa:2048'];
  const constraints = options.ca
    ? ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']
    : ['-addext', 'basicConstraints=critical,CA:FALSE'];
  const run = spawnSync(
    'openssl',
    ['req', '-x509', ...keyArgs, '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '2', '-subj', `/CN=${name}`, ...constraints],
    { encoding: 'utf8' },
  );
  if (run.error) throw new Error(`openssl is needed for this test (apt-get install openssl): ${run.error.message}`);
  assert.is(run.status, 0, run.stderr);
  return { certPath, keyPath, certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') };
}

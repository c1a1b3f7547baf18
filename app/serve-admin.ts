import { resolve } from 'node:path';
import { ConfigSources } from '../engine/config/index.js';
import { createLogger, type Logger } from '../engine/log/index.js';
import type { ImposterManager } from '../engine/manager/index.js';
import { errors, isObject, StartupFailure, errorText } from '../engine/model/index.js';
import { servePlanes, type PlanesOptions, type RunningPlanes } from './planes.js';

/** `svc_serve_admin` options (docs/c-abi.md), validated. */
export interface ServeAdminOptions {
  host: string;
  port: number;
  apiKey?: string;
  metricsPort?: number;
  configFile?: string;
  /** Inline `{imposters: [...]}`'s imposters. */
  config?: unknown[];
  allowInjection: boolean;
}

/** What the embedding host decides for the plane. */
export interface ServeAdminHost {
  /** Engine version reported by `/config` and the event stream. */
  version: string;
  log?: Logger;
  /** Inline `config` is applied ungated (the C ABI: it is the caller's own); default: gated like the admin plane. */
  trustInlineConfig?: boolean;
  /** The intercept slot `/intercept*` operates on (the C ABI shares its own); default: the plane owns one. */
  intercept?: PlanesOptions['intercept'];
}

export interface ServedAdmin {
  adminPort: number;
  adminUrl: string;
  /** null when no metrics port was asked for. */
  metricsPort: number | null;
  close(): Promise<void>;
}

const KNOWN = new Set(['host', 'port', 'apiKey', 'metricsPort', 'configFile', 'config', 'allowInjection']);

function portOption(source: Record<string, unknown>, name: string): number | undefined {
  const value = source[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) {
    throw errors.badData(`'${name}' must be a port number (0-65535)`);
  }
  return value;
}

function stringOption(source: Record<string, unknown>, name: string): string | undefined {
  const value = source[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw errors.badData(`'${name}' must be a string`);
  return value;
}

/** Validates `svc_serve_admin` options (null means all defaults); unknown keys are refused so a typo is not silently ignored. */
export function parseServeAdminOptions(source: unknown): ServeAdminOptions {
  if (source === undefined || source === null) source = {};
  if (!isObject(source)) throw errors.badData('serve_admin options must be a JSON object');
  const unknown = Object.keys(source).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) throw errors.badData(`unknown serve_admin option(s): ${unknown.join(', ')}`);
  const apiKey = stringOption(source, 'apiKey');
  if (apiKey !== undefined && apiKey.trim() === '') throw errors.badData("'apiKey' must not be blank");
  const allow = source.allowInjection;
  if (allow !== undefined && allow !== null && typeof allow !== 'boolean') throw errors.badData("'allowInjection' must be a boolean");
  const configFile = stringOption(source, 'configFile');
  let config: unknown[] | undefined;
  if (source.config !== undefined && source.config !== null) {
    if (!isObject(source.config) || !Array.isArray(source.config.imposters)) throw errors.badData('\'config\' must be {"imposters": [...]}');
    config = source.config.imposters;
  }
  if (configFile !== undefined && config !== undefined) throw errors.badData("'configFile' and 'config' do not compose: pass one");
  return {
    host: stringOption(source, 'host') ?? '127.0.0.1',
    port: portOption(source, 'port') ?? 0,
    apiKey,
    metricsPort: portOption(source, 'metricsPort'),
    configFile: configFile === undefined ? undefined : resolve(configFile),
    config,
    allowInjection: allow === true,
  };
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * `svc_serve_admin` (docs/c-abi.md): the admin plane (plus metrics when `metricsPort` is given) over an
 * existing manager. Ports are bound before anything is loaded, so a busy port applies nothing; a
 * failing `configFile` or inline `config` unbinds them again and throws (an SvcError 400).
 */
export async function serveAdmin(manager: ImposterManager, options: ServeAdminOptions, host: ServeAdminHost): Promise<ServedAdmin> {
  const log = host.log ?? createLogger({ level: 'warn' });
  // The plane's permission gates the manager's untrusted calls: its routes, configFile and reload.
  const previousAllow = manager.allowInjection;
  manager.setAllowInjection(options.allowInjection);
  const sources = options.configFile === undefined ? undefined : new ConfigSources(manager, { configFile: options.configFile, noParse: false });
  let planes: RunningPlanes | undefined;
  try {
    planes = await servePlanes({
      manager,
      log,
      reloader: sources,
      intercept: host.intercept,
      settings: {
        version: host.version,
        port: options.port,
        host: options.host,
        apiKey: options.apiKey,
        localOnly: false,
        ipWhitelist: ['*'],
        metricsPort: options.metricsPort,
        configFile: options.configFile,
        noParse: false,
        requireAdminAuth: false,
      },
      adminPort: options.port,
      adminHost: options.host,
      metricsPort: options.metricsPort,
      metricsHost: options.host,
    });
    if (planes.metricsError !== undefined) {
      throw errors.badData(`cannot bind metrics port ${options.metricsPort}: ${errorText(planes.metricsError)}`);
    }
    if (sources) await sources.loadAtStartup();
    if (options.config) {
      const { report } = await manager.applyAll(options.config, { trusted: host.trustInlineConfig === true });
      if (report.failed.length > 0) throw errors.badData(report.failed.map((f) => `imposter on port ${f.port}: ${f.error}`).join('; '));
    }
  } catch (err) {
    await planes?.close();
    manager.setAllowInjection(previousAllow);
    throw err instanceof StartupFailure ? errors.badData(err.message) : err;
  }
  const served = planes;
  return {
    adminPort: served.admin.port,
    adminUrl: `http://${urlHost(options.host)}:${served.admin.port}`,
    metricsPort: served.metrics?.port ?? null,
    close: () => served.close(),
  };
}

import { resolve } from 'node:path';
import type { ImposterManager } from '../../engine/manager/index.js';
import type { Logger } from '../../engine/log/index.js';
import { errors, isObject } from '../../engine/model/index.js';
import { ConfigSources, StartupError } from '../../engine/config/index.js';
import type { AdminSettings } from '../../admin/index.js';
import { servePlanes, VERSION, type RunningPlanes } from '../../tools/cli/index.js';
import type { InjectionPolicy } from './injection-policy.js';

const KNOWN = new Set(['host', 'port', 'apiKey', 'metricsPort', 'configFile', 'config', 'allowInjection']);

interface ServeOptions {
  host: string;
  port: number;
  apiKey?: string;
  metricsPort?: number;
  configFile?: string;
  config?: unknown[];
  allowInjection: boolean;
}

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

/** svc_serve_admin options (SPEC §4.14), all optional; unknown keys are refused so a typo is not silently ignored. */
function serveOptions(source: Record<string, unknown>): ServeOptions {
  const unknown = Object.keys(source).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) throw errors.badData(`unknown serve_admin option(s): ${unknown.join(', ')}`);
  const apiKey = stringOption(source, 'apiKey');
  if (apiKey !== undefined && apiKey.trim() === '') throw errors.badData("'apiKey' must not be blank");
  if (source.allowInjection !== undefined && source.allowInjection !== null && typeof source.allowInjection !== 'boolean') {
    throw errors.badData("'allowInjection' must be a boolean");
  }
  const configFile = stringOption(source, 'configFile');
  let config: unknown[] | undefined;
  if (source.config !== undefined && source.config !== null) {
    if (!isObject(source.config) || !Array.isArray(source.config.imposters)) throw errors.badData("'config' must be {\"imposters\": [...]}");
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
    allowInjection: source.allowInjection === true,
  };
}

/** The admin (and optional metrics) plane a handle may serve once, over the handle's own manager. */
export class EmbeddedAdmin {
  private planes: RunningPlanes | undefined;
  private busy = false;

  constructor(private readonly manager: ImposterManager, private readonly policy: InjectionPolicy, private readonly log: Logger) {}

  async serve(source: Record<string, unknown>): Promise<Record<string, unknown>> {
    const options = serveOptions(source);
    if (this.busy || this.planes) throw errors.badData('the admin plane is already serving');
    this.busy = true;
    const previous = this.policy.adminAllows;
    this.policy.adminAllows = options.allowInjection;
    let planes: RunningPlanes | undefined;
    try {
      const sources = options.configFile === undefined ? undefined : new ConfigSources(this.manager, { configFile: options.configFile, noParse: false });
      const settings: AdminSettings = {
        version: VERSION,
        port: options.port,
        host: options.host,
        apiKey: options.apiKey,
        localOnly: false,
        ipWhitelist: ['*'],
        metricsPort: options.metricsPort,
        configFile: options.configFile,
        noParse: false,
        requireAdminAuth: false,
      };
      // Bound before anything is loaded, so a busy port applies nothing.
      planes = await servePlanes({
        manager: this.manager, log: this.log, settings, reloader: sources,
        adminPort: options.port, adminHost: options.host, metricsPort: options.metricsPort, metricsHost: options.host,
      });
      settings.port = planes.admin.port;
      if (planes.metricsError !== undefined) {
        throw errors.badData(`cannot bind metrics port ${options.metricsPort}: ${(planes.metricsError as Error).message}`);
      }
      if (sources) await sources.loadAtStartup();
      if (options.config) await this.applyInline(options.config);
      this.planes = planes;
      return {
        adminPort: planes.admin.port,
        adminUrl: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${planes.admin.port}`,
        metricsPort: planes.metrics?.port ?? null,
      };
    } catch (err) {
      this.policy.adminAllows = previous;
      await planes?.metrics?.close();
      await planes?.admin.close();
      throw err instanceof StartupError ? errors.badData(err.message) : err;
    } finally {
      this.busy = false;
    }
  }

  /** Inline `config` is the caller's own and not gated; it reconciles the imposter set like a reload. */
  private async applyInline(imposters: unknown[]): Promise<void> {
    const { report } = await this.policy.trusted(() => this.manager.applyAll(imposters));
    if (report.failed.length > 0) {
      throw errors.badData(report.failed.map((f) => `imposter on port ${f.port}: ${f.error}`).join('; '));
    }
  }

  async close(): Promise<void> {
    const planes = this.planes;
    this.planes = undefined;
    await planes?.metrics?.close();
    await planes?.admin.close();
  }
}
